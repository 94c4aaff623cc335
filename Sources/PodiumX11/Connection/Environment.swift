#if canImport(Glibc)
import Glibc
#endif

enum Environment {
    /// `$DISPLAY`, if set.
    static var display: String? {
        getenv("DISPLAY").map { String(cString: $0) }
    }
}
