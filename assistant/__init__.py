"""GPU Advisor's thin layers over `tools/`: the agent, model back-ends, CLI and web page."""
