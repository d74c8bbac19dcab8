#!/usr/bin/env bash
# Print the built book (scripts/build_book.sh) to one PDF: _build/pdf/book.pdf, also copied
# beside the HTML, where the introduction links to it.
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
step "print the book to a PDF"
python scripts/build_pdf.py "$@"
