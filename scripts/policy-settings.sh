#!/bin/sh
# policy-settings.sh SOURCE.go OUT.go 'Field: value' ...
#
# Writes a copy of a policy source with top-level settings replaced: each
# 'Field: value' replaces the value of every line "<tab>Field: …," of a
# settings literal (for example the defence variable of
# docs/_robust/gathering.go). Used by docs/scenarios.md to make
# the measured variants; a field it does not find is an error.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 SOURCE.go OUT.go 'Field: value' ..." >&2; exit 2; }
src=$1 out=$2
shift 2
cp "$src" "$out"
for kv in "$@"; do
	field=${kv%%:*}
	value=${kv#*: }
	grep -q "^	$field: *[^,]*,\$" "$out" || { echo "$0: no setting $field in $src" >&2; exit 1; }
	sed -i "s/^\(	$field: *\)[^,]*,\$/\1$value,/" "$out"
done
