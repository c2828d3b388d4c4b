#!/usr/bin/env python
"""Django's command-line utility for the FIDO ranking service.

On the production settings unless ``DJANGO_SETTINGS_MODULE`` says otherwise: development
runs set ``DJANGO_SETTINGS_MODULE=fido.settings.base`` (the Makefile's targets do).
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fido.settings.production")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
