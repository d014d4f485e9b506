"""One module per group of subcommands, each with `run(args) -> int`, imported lazily."""
