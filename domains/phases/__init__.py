"""The phases domain: phases per file from entry points and the import graph, and the plan built on them."""
