package worker

const openat, execve, socket = 257, 59, 41
