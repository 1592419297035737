# tree/kernel-paths.sh: sourced by tree/sync-tree and tree/make-series, so
# that the `ours` tree and the series' end are made of the same files.
# Needs $kdir (the repository's kernel/).

# Source files under kernel/ that mirror tree paths (relative to kernel/)
mirror_files() {
	(cd "$kdir" && find . -type f \
		! -path './patches/*' ! -path './series/*' \
		! -path './stock-series/*' \
		! -regex '\./[^/]*\.config' ! -name '*.mk' \
		! -name 'README*' ! -name '*.md' ! -name '.*' \
		! -name '*~' ! -name '*.orig' ! -name '*.rej' ! -name '*.swp' \
		-printf '%P\n' | LC_ALL=C sort)
}

# Tree paths a diff touches (-p1: first component stripped; /dev/null
# out), and both paths of a git rename (no a/ b/ prefix there: step 00
# and kernel/patches/0001 move the tree's flower)
diff_paths() {
	{
		sed -n -E 's#^(\+\+\+|---) ([^\t ]+).*#\2#p' "$1" | grep -v '^/dev/null$' |
			sed -E 's#^[^/]*/##'
		sed -n -E 's#^rename (from|to) (.*)$#\2#p' "$1"
	} | LC_ALL=C sort -u
}
