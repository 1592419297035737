# SPDX-License-Identifier: GPL-2.0
"""flowernl.py: the flower nla class and the request builder, encoded with
pyroute2 and decoded back, without a socket (no kernel involved)."""

import errno
import io
import shlex
import socket
import struct
import sys
import unittest
from contextlib import redirect_stderr, redirect_stdout

from pyroute2.netlink.exceptions import NetlinkError
from pyroute2.netlink.rtnl.marshal import MarshalRtnl
from pyroute2.netlink.rtnl.tcmsg import tcmsg

from flower import uapi
from flower.tests.test_nl import tc_parent
from tdc import corpus, flowernl


def request(*argv):
    return flowernl.build_request(flowernl.parse_args(
        ['add', '--dev', 'unused'] + list(argv)), 7)


def round_trip(msg, msg_class=flowernl.FlowerTcMsg):
    msg.encode()
    data = bytes(msg.data)
    decoded = msg_class(data)
    decoded.decode()
    return data, decoded


class TestNumbering(unittest.TestCase):
    def test_numbers_are_the_checked_table(self):
        # flower/tests/test_uapi.py checks the table against 6.1's pkt_cls.h
        self.assertEqual([flowernl.NAME_BY_NUMBER[n]
                          for n in range(len(flowernl.FLOWER_ATTRS))],
                         ['TCA_FLOWER_' + a.name for a in uapi.TABLE])

    def test_some_numbers(self):
        self.assertEqual(flowernl.ATTR_BY_NAME['TCA_FLOWER_KEY_ETH_DST'][0], 4)
        self.assertEqual(flowernl.ATTR_BY_NAME['TCA_FLOWER_FLAGS'][0], 22)
        self.assertEqual(flowernl.ATTR_BY_NAME['TCA_FLOWER_KEY_L2TPV3_SID'][0],
                         105)


class TestRoundTrip(unittest.TestCase):
    def test_typed_attributes(self):
        _, msg = round_trip(request(
            '--prio', '3', '--protocol', 'ipv6', '--handle', '0x10',
            '--chain', '2', '--action', 'drop',
            '--attr', 'eth_dst=e4:11:22:11:4a:51',
            '--attr', 'key_eth_src_mask=ff:ff:ff:00:00:00',
            '--attr', 'TCA_FLOWER_KEY_IP_PROTO=17',
            '--attr', 'ipv6_dst=2001:db8::1', '--attr', 'udp_dst=4789',
            '--attr', 'ipv4_src=192.0.2.1', '--attr', 'vlan_id=100',
            '--attr', 'tcp_flags=0x12', '--attr', 'flags=skip_hw',
            '--attr', 'indev=lo', '--attr', 'ct_labels=' + '01' * 16))
        entry = flowernl.filter_json(msg)
        self.assertEqual((entry['handle'], entry['prio'], entry['protocol'],
                          entry['chain'], entry['kind']),
                         (0x10, 3, 0x86DD, 2, 'flower'))
        opts = entry['options']
        self.assertEqual(opts['TCA_FLOWER_KEY_ETH_DST'], 'e4:11:22:11:4a:51')
        self.assertEqual(opts['TCA_FLOWER_KEY_ETH_SRC_MASK'],
                         'ff:ff:ff:00:00:00')
        self.assertEqual(opts['TCA_FLOWER_KEY_IP_PROTO'], 17)
        self.assertEqual(opts['TCA_FLOWER_KEY_IPV6_DST'], '2001:db8::1')
        self.assertEqual(opts['TCA_FLOWER_KEY_UDP_DST'], 4789)
        self.assertEqual(opts['TCA_FLOWER_KEY_IPV4_SRC'], '192.0.2.1')
        self.assertEqual(opts['TCA_FLOWER_KEY_VLAN_ID'], 100)
        self.assertEqual(opts['TCA_FLOWER_KEY_TCP_FLAGS'], 0x12)
        self.assertEqual(opts['TCA_FLOWER_FLAGS'], 1)
        self.assertEqual(opts['TCA_FLOWER_INDEV'], 'lo')
        self.assertEqual(opts['TCA_FLOWER_KEY_CT_LABELS'],
                         ':'.join(['01'] * 16))
        action = opts['TCA_FLOWER_ACT'][0]
        self.assertEqual((action['order'], action['kind']), (1, 'gact'))
        self.assertEqual(action['options']['parms']['action'], 2)  # SHOT

    def test_wire_format(self):
        data, _ = round_trip(request('--attr', 'udp_dst=4789',
                                     '--attr', 'vlan_id=100'))
        # be16 port in network order; VLAN id in host order, as the kernel
        self.assertIn(struct.pack('=HH', 6, 21) + struct.pack('>H', 4789),
                      data)
        self.assertIn(struct.pack('=HH', 6, 23) + struct.pack('=H', 100),
                      data)

    def test_raw_attributes_are_sent_as_given(self):
        data, msg = round_trip(request(
            '--attr', 'ipv4_dst=10.0.0.1',
            '--raw', 'KEY_ETH_DST_MASK=ffffff',      # too short
            '--raw', '200=',                         # unknown, empty
            '--raw', '0x8000=0102'))                 # NLA_F_NESTED, type 0
        self.assertIn(struct.pack('=HH', 7, 5) + b'\xff\xff\xff\x00', data)
        self.assertIn(struct.pack('=HH', 4, 200), data)
        self.assertIn(struct.pack('=HH', 6, 0x8000) + b'\x01\x02', data)
        opts = flowernl.filter_json(msg)['options']
        self.assertEqual(opts['TCA_FLOWER_KEY_IPV4_DST'], '10.0.0.1')

    def test_raw_classes_do_not_leak_into_the_typed_one(self):
        request('--raw', 'KEY_ETH_DST=00')
        _, msg = round_trip(request('--attr', 'eth_dst=00:00:00:00:00:01'))
        self.assertEqual(flowernl.filter_json(msg)['options'],
                         {'TCA_FLOWER_KEY_ETH_DST': '00:00:00:00:00:01'})

    def test_conflicting_protocol_and_kind(self):
        _, msg = round_trip(request('--protocol', 'arp', '--kind', 'matchall',
                                    '--attr', 'eth_type=ip'))
        self.assertEqual(socket.ntohs(msg['info'] & 0xFFFF), 0x0806)
        self.assertEqual(msg.get_attr('TCA_KIND'), 'matchall')


class TestPyroute2Registration(unittest.TestCase):
    def test_tc_plugin_interface(self):
        # what IPRoute.tc('add-filter', 'flower', ...) does with our module
        msg = tcmsg()
        kwarg = {'protocol': 0x0800, 'prio': 5, 'ipv4_dst': '10.1.1.1',
                 'ip_proto': 6, 'action': 'drop'}
        flowernl.fix_msg(msg, kwarg)
        msg['attrs'] = [['TCA_KIND', 'flower'], ['TCA_OPTIONS',
                        flowernl.get_parameters(kwarg)]]
        msg.encode()
        decoded = tcmsg(bytes(msg.data))     # pyroute2's own tcmsg
        decoded.decode()
        self.assertEqual(decoded['info'], (5 << 16) | socket.htons(0x0800))
        opts = decoded.get_attr('TCA_OPTIONS')
        self.assertIsInstance(opts, flowernl.FlowerOptions)
        self.assertEqual(opts.get_attr('TCA_FLOWER_KEY_IPV4_DST'), '10.1.1.1')
        self.assertEqual(opts.get_attr('TCA_FLOWER_KEY_IP_PROTO'), 6)

    def test_unknown_keyword(self):
        with self.assertRaises(ValueError):
            flowernl.get_parameters({'no_such_key': 1})


class TestExtack(unittest.TestCase):
    def error_reply(self, errno_, text):
        req = request('--attr', 'ipv4_dst=10.0.0.1')
        req['header'].update(type=44, flags=0x605, sequence_number=9)
        req.encode()
        body = bytes(req.data)
        msg = text.encode() + b'\0'
        tlv = struct.pack('=HH', 4 + len(msg), 1) + msg
        tlv += b'\0' * (-len(tlv) % 4)
        payload = struct.pack('=i', -errno_) + body + tlv
        # NLM_F_ACK_TLVS: the kernel appended extack attributes
        return struct.pack('=IHHII', 16 + len(payload), 2, 0x200, 9, 0) + \
            payload

    def test_pyroute2_reads_the_extack_message(self):
        replies = list(MarshalRtnl().parse(self.error_reply(22, 'bad mask'),
                                           seq=9))
        error = replies[0]['header']['error']
        self.assertIsInstance(error, NetlinkError)
        self.assertEqual(error.args, (22, 'bad mask'))

    def test_report_error_prints_like_tc(self):
        err = io.StringIO()
        with redirect_stderr(err):
            code = flowernl.report_error(NetlinkError(22, 'bad mask'))
        self.assertEqual(code, 22)
        self.assertEqual(err.getvalue().splitlines(),
                         ['Error: bad mask.',
                          'RTNETLINK answers: Invalid argument'])
        err = io.StringIO()
        with redirect_stderr(err):
            self.assertEqual(flowernl.report_error(NetlinkError(95)), 95)
        self.assertEqual(err.getvalue().splitlines(),
                         ['RTNETLINK answers: Operation not supported'])


class TestRequestFlags(unittest.TestCase):
    def test_every_change_asks_for_an_ack(self):
        from pyroute2.netlink import (NLM_F_ACK, NLM_F_CREATE, NLM_F_DUMP,
                                      NLM_F_EXCL, NLM_F_REPLACE)
        flags = {c: flowernl.request_type_and_flags(c)[1]
                 for c in flowernl.REQUESTS}
        for command in ('add', 'replace', 'change', 'delete', 'get'):
            self.assertTrue(flags[command] & NLM_F_ACK, command)
        self.assertEqual(flags['add'] & (NLM_F_CREATE | NLM_F_EXCL),
                         NLM_F_CREATE | NLM_F_EXCL)
        self.assertEqual(flags['replace'] & (NLM_F_CREATE | NLM_F_REPLACE),
                         NLM_F_CREATE | NLM_F_REPLACE)
        self.assertEqual(flags['show'] & NLM_F_DUMP, NLM_F_DUMP)
        self.assertFalse(flags['show'] & NLM_F_ACK)


class TestParsing(unittest.TestCase):
    def test_handles_and_protocols(self):
        self.assertEqual(flowernl.parse_tc_handle('ingress'), 0xFFFFFFF2)
        self.assertEqual(flowernl.parse_tc_handle('ffff:'), 0xFFFF0000)
        self.assertEqual(flowernl.parse_tc_handle('1:2'), 0x10002)
        self.assertEqual(flowernl.protocol_number('802.1q'), 0x8100)
        self.assertEqual(flowernl.protocol_number('0x88cc'), 0x88CC)

    def test_parent_is_what_tc_sends(self):
        """--parent ingress/egress land on clsact's classes, as `tc filter
        add dev D ingress|egress` does: before, ingress was ffff:fff1 and
        egress ffff:fff2, so a clsact qdisc refused the first ("Specified
        class doesn't exist") and the second went to its ingress."""
        for name in ('ingress', 'egress'):
            msg = flowernl.build_request(flowernl.parse_args(
                ['add', '--dev', 'unused', '--parent', name]), 7)
            self.assertEqual(msg['parent'], tc_parent(name), name)
        # the default is ingress
        self.assertEqual(request()['parent'], tc_parent('ingress'))

    def test_names(self):
        for key in ('eth_dst', 'key_eth_dst', 'TCA_FLOWER_KEY_ETH_DST'):
            self.assertEqual(flowernl.attr_name(key),
                             'TCA_FLOWER_KEY_ETH_DST')
        self.assertEqual(flowernl.attr_number('classid'), 1)
        self.assertEqual(flowernl.attr_number('0x8004'), 0x8004)
        with self.assertRaises(ValueError):
            flowernl.attr_name('dst_ip')         # tc's keyword, not an nla

    def test_values(self):
        self.assertEqual(flowernl.parse_value('TCA_FLOWER_FLAGS',
                                              'skip_hw,skip_sw'), 3)
        self.assertEqual(flowernl.parse_value('TCA_FLOWER_KEY_ETH_TYPE',
                                              'ipv6'), 0x86DD)
        self.assertEqual(flowernl.parse_hex('0a:00.0001'), b'\n\0\0\1')


class TestBatch(unittest.TestCase):
    """flowernl.py batch names the request that went wrong."""

    def run_batch(self, argv, results):
        sent = []

        def send(args):
            sent.append(args)
            code, message = results[len(sent) - 1]
            if message:
                print('Error: %s.' % message, file=sys.stderr)
            return code
        out = io.StringIO()
        with redirect_stdout(out):
            code = flowernl.batch(argv, send)
        return code, out.getvalue().splitlines(), sent

    ARGV = ['--expect', '95', 'Unsupported flower attribute X',
            'add --dev d1 --raw key_x=00',
            '--expect', '22', 'Mask given without its key',
            'add --dev d1 --attr eth_dst_mask=ff:ff:ff:ff:ff:ff',
            '--expect', '22', 'Bad',
            'add --dev d1 --attr ip_proto=6']

    def test_all_as_expected(self):
        code, lines, sent = self.run_batch(self.ARGV, [
            (95, 'Unsupported flower attribute X'),
            (22, 'Mask given without its key'), (22, 'Bad')])
        self.assertEqual(code, 0)
        self.assertEqual(lines, ['3 requests: 3 as expected, 0 not'])
        self.assertEqual(sent[1], ['add', '--dev', 'd1', '--attr',
                                   'eth_dst_mask=ff:ff:ff:ff:ff:ff'])

    def test_names_the_request_that_went_wrong(self):
        code, lines, _ = self.run_batch(self.ARGV, [
            (95, 'Unsupported flower attribute X'), (0, None),
            (22, 'Other')])
        self.assertEqual(code, 1)
        self.assertEqual(lines[0], 'request 2 of 3 is not as expected: add '
                         '--dev d1 --attr eth_dst_mask=ff:ff:ff:ff:ff:ff')
        self.assertEqual(lines[1], '  expected: exit 22, "Error: Mask given '
                         'without its key."')
        self.assertEqual(lines[2], '  got:      exit 0')
        self.assertEqual(lines[3], 'request 3 of 3 is not as expected: add '
                         '--dev d1 --attr ip_proto=6')
        self.assertEqual(lines[-1], '3 requests: 1 as expected, 2 not')

    def test_bad_usage(self):
        with redirect_stderr(io.StringIO()):
            self.assertEqual(flowernl.batch(['--expect', '1', 'x'], None),
                             flowernl.USAGE_EXIT)

    def test_a_request_with_a_usage_error_is_not_the_kernels_errno(self):
        # it never reaches a socket: argparse refuses it
        out = io.StringIO()
        with redirect_stdout(out):
            code = flowernl.batch(['--expect', '22', '',
                                   'add --dev d1 --no-such-option'])
        self.assertEqual(code, 1)
        self.assertIn('  got:      exit %d' % flowernl.USAGE_EXIT,
                      out.getvalue())


# The highest errno Linux defines (include/uapi/asm-generic/errno.h,
# EHWPOISON); Python's errno module may know fewer.
LINUX_ERRNO_MAX = 133


class TestOwnErrors(unittest.TestCase):
    """flowernl's own errors (usage, an attribute it cannot build, a
    device that is not there) exit with USAGE_EXIT, which no errno has:
    before, they exited with 22 (EINVAL) or argparse's 2 (ENOENT), so a
    case expecting the kernel's EINVAL passed on a request that never
    reached the kernel (8c3a)."""

    def test_usage_exit_is_no_errno_and_no_signal(self):
        self.assertGreater(flowernl.USAGE_EXIT, LINUX_ERRNO_MAX)
        self.assertNotIn(flowernl.USAGE_EXIT, errno.errorcode)
        self.assertGreater(flowernl.USAGE_EXIT, 128 + 64)   # 128 + signal
        self.assertLess(flowernl.USAGE_EXIT, 255)
        self.assertIn('USAGE_EXIT, %d' % flowernl.USAGE_EXIT,
                      ' '.join(flowernl.__doc__.split()))

    def run_main(self, *argv):
        err = io.StringIO()
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            try:
                code = flowernl.main(list(argv))
            except SystemExit as exc:
                code = exc.code
        return code, err.getvalue()

    def test_argument_errors(self):
        for argv in (['frobnicate', '--dev', 'x'],
                     ['add'],
                     ['add', '--dev', 'x', '--prio', 'notanumber'],
                     ['add', '--dev', 'x', '--action', 'nosuchaction']):
            code, err = self.run_main(*argv)
            self.assertEqual(code, flowernl.USAGE_EXIT, (argv, err))
            self.assertIn('error:', err, argv)

    def test_unbuildable_request(self):
        # a link lookup on the host (lo is always there); nothing is sent
        for attr in ('--attr', 'no_such_attr=1'), ('--attr', 'ip_proto=x'), \
                ('--raw', 'key_eth_dst=zz'):
            code, err = self.run_main('add', '--dev', 'lo', *attr)
            self.assertEqual(code, flowernl.USAGE_EXIT, (attr, err))
            self.assertTrue(err.startswith('flowernl: '), err)
            self.assertNotIn('RTNETLINK answers', err)

    def test_missing_device(self):
        code, err = self.run_main('show', '--dev', 'tdcnosuchdev0')
        self.assertEqual(code, flowernl.USAGE_EXIT)
        self.assertIn('Cannot find device "tdcnosuchdev0"', err)

    def test_kernel_errors_keep_their_errno(self):
        with redirect_stderr(io.StringIO()):
            self.assertEqual(flowernl.report_error(NetlinkError(22, 'x')), 22)
            self.assertEqual(flowernl.report_error(NetlinkError(-2)), 2)

    def test_corpus_expects_kernel_errnos_only(self):
        """Every exit status a case expects of $FLNL (its expExitCode, a
        batch's --expect) is 0 or an errno, never USAGE_EXIT: 8c3a's 22
        and 99be's 17 are the kernel's."""
        cases = [c for path in corpus.case_files([corpus.DEFAULT_DIR])
                 for c in corpus.load_file(path)]
        seen = 0
        for case in cases:
            cmd = case.get('cmdUnderTest', '')
            if not cmd.startswith('$FLNL '):
                continue
            seen += 1
            words = shlex.split(cmd)
            codes = [int(words[i + 1]) for i, w in enumerate(words)
                     if w == '--expect'] if words[1] == 'batch' else \
                [int(case['expExitCode'])]
            for code in codes:
                self.assertTrue(0 <= code <= LINUX_ERRNO_MAX,
                                (case['id'], code))
        self.assertGreater(seen, 10)
        ids = {c['id']: c for c in cases}
        self.assertEqual(ids['8c3a']['expExitCode'], '22')


if __name__ == '__main__':
    unittest.main()
