"""The device domain: torch.cuda APIs, device strings, AMP, backends, compile, profiler, environment variables."""
