package incident

// GzipBytes is gzipBytes for the package's external tests.
var GzipBytes = gzipBytes
