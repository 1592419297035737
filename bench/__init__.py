# SPDX-License-Identifier: GPL-2.0
"""bench - classification cost and control-path rates (bench/README.md)."""
