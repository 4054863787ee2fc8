"""One module per `gpu-advisor` sub-command, each exposing `command` (a click.Command)."""
