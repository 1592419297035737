"""mutate.guests.watched(): a guest whose kernel oopsed and that writes no
result any more is stopped; one that goes on writing results is not."""
import sys
import tempfile
import time
import unittest
from unittest import mock

from mutate import guests

# a fake guest: writes console lines and result files, then sleeps
FAKE = r'''
import os, sys, time
out, splat, results = sys.argv[1], sys.argv[2] == '1', int(sys.argv[3])
with open(os.path.join(out, 'console.log'), 'w') as f:
    f.write('[ 1.0] BUG: kernel NULL pointer dereference\n' if splat else '[ 1.0] ok\n')
for i in range(results):
    time.sleep(0.3)
    open(os.path.join(out, 'm%04d.json' % i), 'w').close()
time.sleep(3)
'''


class TestWatched(unittest.TestCase):
    def guest(self, splat, results):
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, '-c', FAKE, out, '1' if splat else '0', str(results)]
            t0 = time.time()
            with mock.patch.object(guests, 'WEDGED', 1), mock.patch.object(guests, 'log'):
                p = guests.watched(cmd, out, poll=0.2)
            return p.returncode, time.time() - t0

    def test_wedged_guest_is_stopped(self):
        rc, took = self.guest(splat=True, results=0)
        self.assertNotEqual(rc, 0)
        self.assertLess(took, 2.9)

    def test_no_splat_runs_to_the_end(self):
        rc, took = self.guest(splat=False, results=0)
        self.assertEqual(rc, 0)
        self.assertGreaterEqual(took, 3)


if __name__ == '__main__':
    unittest.main()
