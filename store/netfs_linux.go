package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrNetworkFS: the store is on a network file system, where bbolt's
// file lock and its mapped pages do not hold (docs/store.md).
var ErrNetworkFS = errors.New("a store on a network file system is not supported")

// networkMagic are the statfs magic numbers of network file systems
// (linux/magic.h and the file systems' sources).
var networkMagic = map[int64]string{
	0x6969:     "NFS",
	0x517B:     "SMB",
	0xFF534D42: "CIFS",
	0xFE534D42: "SMB2",
	0x01021997: "9p",
	0x5346414F: "AFS",
	0x00C36400: "Ceph",
	0x73757245: "Coda",
	0x564C:     "NCP",
	0x0BD00BD0: "Lustre",
}

// networkFUSE are the FUSE file systems (mountinfo's type fuse.NAME)
// that reach over a network. Other FUSE file systems (fuse-overlayfs in
// containers, say) are local and allowed.
var networkFUSE = map[string]bool{"sshfs": true, "rclone": true, "s3fs": true, "gcsfuse": true, "glusterfs": true,
	"goofys": true, "juicefs": true, "davfs": true, "smbnetfs": true, "curlftpfs": true}

const fuseMagic = 0x65735546

// checkLocal refuses a store whose directory is on a network file system
// it can recognise: statfs's magic number, and for FUSE the mount's type
// in /proc/self/mountinfo. A file system it cannot identify is allowed.
func checkLocal(path string) error {
	dir := filepath.Dir(path)
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return nil // the open that follows reports what is wrong
	}
	magic := int64(st.Type) & 0xFFFFFFFF
	if name, ok := networkMagic[magic]; ok {
		return fmt.Errorf("%w: %s is on %s (keep the store on a local disk; docs/store.md)", ErrNetworkFS, path, name)
	}
	if magic == fuseMagic {
		if sub := fuseType(dir); networkFUSE[sub] {
			return fmt.Errorf("%w: %s is on %s (FUSE; keep the store on a local disk; docs/store.md)", ErrNetworkFS, path, sub)
		}
	}
	return nil
}

// fuseType is the subtype ("sshfs") of the FUSE mount holding dir, from
// the mount whose mount point is the longest prefix of dir; "" if unknown.
func fuseType(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	best, typ := -1, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, after := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(after) < 1 {
			continue
		}
		mp := strings.ReplaceAll(fields[4], `\040`, " ")
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > best {
			best, typ = len(mp), after[0]
		}
	}
	return strings.TrimPrefix(typ, "fuse.")
}
