"""The Gradio page: a thin layer over `assistant.advisor` and the tool registry."""
