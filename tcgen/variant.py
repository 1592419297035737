# SPDX-License-Identifier: GPL-2.0
"""tcgen.variant - one catalogue entry: a filter's protocol and matches,
another value with the same mask, packets that match and that do not.
"""

from flower import uapi
from tcgen.common import ETH_TYPE_NUM, ETH_TYPE_SHOWN, KEY_ORDER, PPP_CARRIED


def _print_order(found):
    """The keys of `found` in the order tc 6.1 prints them (KEY_ORDER),
    a port range (dst_port or src_port as {"start", "end"}) after the
    exact ports, destination first."""
    def rank(word):
        if isinstance(found[word], dict) and word in ('dst_port',
                                                      'src_port'):
            return KEY_ORDER.index('src_port_mask') + (
                0.1 if word == 'dst_port' else 0.2)
        return KEY_ORDER.index(word)
    return sorted(found, key=rank)


class Variant:
    """A filter's protocol and matches, another value with the same mask
    (alt), packets that match (hit) and that do not (miss)."""

    def __init__(self, family, label, proto, matches, alt, hit, miss,
                 setup=(), tc_prints=True, dump_tags=()):
        self.family, self.label, self.proto = family, label, proto
        self.matches, self.alt = matches, alt
        self.hit, self.miss = hit, miss
        self.setup = list(setup)
        # the categories of a case that checks the variant's dump
        # (PPPOE_DUMP: the series' steps before its PPPoE dump step dump
        # it as the stock flower does)
        self.dump_tags = list(dump_tags)
        # tc 6.1 prints IP addresses and ICMP keys only when eth_type is
        # ip/ipv6: not for a VLAN filter's inner ones
        self.tc_prints = tc_prints

    @property
    def title(self):
        return '%s (%s)' % (self.label, self.family)

    def words(self, alt=False):
        return ' '.join(m.tc for m in (self.alt if alt else self.matches))

    def eth_type(self, alt=False):
        """The TCA_FLOWER_KEY_ETH_TYPE the kernel dumps, or None.  For a
        filter with VLAN tags (a TPID protocol, or num_of_vlans) it is
        the innermost ethertype, as in the tree's flower: none when the
        tags are all the filter gives."""
        attrs = {}
        for m in self.alt if alt else self.matches:
            attrs.update(m.attrs)
        if self.proto not in ('802.1q', '802.1ad') and \
                not attrs.get('NUM_OF_VLANS'):
            return ETH_TYPE_NUM.get(self.proto)
        inner = attrs.get('CVLAN_ETH_TYPE', attrs.get('VLAN_ETH_TYPE'))
        if inner in uapi.VLAN_TPIDS:
            return None
        if inner == uapi.ETH_P_PPP_SES:
            return PPP_CARRIED.get(attrs.get('PPP_PROTO'))
        return inner

    def keys(self, alt=False):
        found = {}
        eth_type = self.eth_type(alt)
        if eth_type is not None:
            found['eth_type'] = ETH_TYPE_SHOWN.get(eth_type,
                                                   '%04x' % eth_type)
        for m in self.alt if alt else self.matches:
            found.update(m.keys)
        return {k: found[k] for k in _print_order(found)}

    def options(self, handle, alt=False):
        """The "options" of tc -j filter show for the filter."""
        opts = {'handle': handle}
        for m in self.alt if alt else self.matches:
            opts.update(m.options)
        opts['keys'] = self.keys(alt)
        opts['not_in_hw'] = True
        return opts

    def attrs(self, alt=False):
        """The attributes the kernel dumps, as $FLNL show names them."""
        found = {}
        if self.eth_type(alt) is not None:
            found['TCA_FLOWER_KEY_ETH_TYPE'] = self.eth_type(alt)
        for m in self.alt if alt else self.matches:
            for name, value in m.attrs.items():
                found[('TCA_FLOWER_' if name == 'INDEV' else
                       'TCA_FLOWER_KEY_') + name] = value
        found['TCA_FLOWER_FLAGS'] = 8           # TCA_CLS_FLAGS_NOT_IN_HW
        return found

    def masked(self):
        return any('/' in m.tc for m in self.matches)


def V(*args, **kwargs):
    return Variant(*args, **kwargs)
