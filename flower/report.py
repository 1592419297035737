# SPDX-License-Identifier: GPL-2.0
"""flower.report - what the docs/*.md writers share."""

import json


def load(path):
    """A run's JSON output, or None when it is missing or cut short (a
    guest that died mid-write): the report then says the part has no
    result instead of failing."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cell(text):
    """Text as one Markdown table cell: pipes escaped, one line."""
    return str(text).replace('|', '\\|').replace('\n', ' ')
