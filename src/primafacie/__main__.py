"""``python -m primafacie``: the same command line as ``primafacie``."""

from primafacie.cli_help import main

if __name__ == "__main__":
    main()
