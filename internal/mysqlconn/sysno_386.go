package mysqlconn

// sysRecvfrom is recvfrom(2)'s own system call number on 386 (Linux 4.3
// and later): Go's syscall package knows only the older socketcall(2)
// multiplexer there.
const sysRecvfrom = 371
