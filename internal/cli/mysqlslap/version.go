package mysqlslap

// Version is goslap's own version, shown by --version and --help.
const Version = "0.1.0"
