"""The distributed domain: backends, meshes, parallel wrappers, collectives, launchers and their settings."""
