"""One module per `tableref` subcommand, each with `main(args) -> int`."""
