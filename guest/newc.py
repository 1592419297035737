"""Minimal writer for the cpio "newc" format the kernel unpacks as initramfs.

Used by guest/mkinitramfs (the base image) and guest/run (the per-run
archive appended to it). Device nodes need no privileges this way.
"""
import stat


class Newc:
    def __init__(self):
        self.parts = []
        self.ino = 1000

    def _entry(self, name, mode, data=b"", rdev=(0, 0), mtime=0):
        name_b = name.lstrip("/").encode() + b"\0"
        self.ino += 1
        fields = [self.ino, mode, 0, 0, 1, mtime, len(data), 0, 0,
                  rdev[0], rdev[1], len(name_b), 0]
        hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
        self.parts.append(hdr + name_b)
        self._pad()
        if data:
            self.parts.append(data)
            self._pad()

    def _pad(self):
        n = sum(len(p) for p in self.parts)
        if n % 4:
            self.parts.append(b"\0" * (4 - n % 4))

    def dir(self, name, perm=0o755):
        self._entry(name, stat.S_IFDIR | perm)

    def file(self, name, data, perm=0o644):
        self._entry(name, stat.S_IFREG | perm, data)

    def symlink(self, name, target):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor, perm=0o600):
        self._entry(name, stat.S_IFCHR | perm, rdev=(major, minor))

    def bytes(self):
        self._entry("TRAILER!!!", 0)
        data = b"".join(self.parts)
        return data + b"\0" * (-len(data) % 512)
