# tdc plugins: each module NAME.py here defines class SubPlugin(TdcPlugin);
# a case loads it with "plugins": {"requires": "NAME"} or tdc.py --plugin NAME.
