# SPDX-License-Identifier: GPL-2.0
"""stress.flowerfuzz - stress/fuzz.py's model of the tc core and of this classifier, and
its request generator (see stress/fuzz.py).
"""
