"""`python -m assay` runs the command line."""

from assay.cli import main

main()
