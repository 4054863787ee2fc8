"""Frame → tool calls → an answer plan, one module per intent family (see PRECEDENCE)."""
