import CBuildInfo
import Foundation

/// The shared libraries this process runs with, as the dynamic linker loaded them.
public enum SharedLibrary {
    /// The file name of the loaded library whose name starts with `prefix`, such as
    /// `libxcb.so.1.1.0` for `libxcb.so`: the name carries the version of a library that has no
    /// function to report one. Asked of the dynamic linker (reading /proc/self/maps cost
    /// `podium --version` milliseconds), then followed from the soname to its file.
    public static func file(named prefix: String) -> String? {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard cbuildinfo_loaded_library(prefix, &path, path.count) == 0 else { return nil }
        let loaded = String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: loaded).resolvingSymlinksInPath().lastPathComponent
    }
}
