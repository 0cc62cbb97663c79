"""``python -m primafacie``: the same command line as ``primafacie``."""

from primafacie.launch import main

if __name__ == "__main__":
    main()
