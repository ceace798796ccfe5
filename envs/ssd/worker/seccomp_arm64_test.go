package worker

const openat, execve, socket = 56, 221, 198
