import Foundation

/// The shared libraries this process runs with, as the dynamic linker loaded them.
public enum SharedLibrary {
    /// The file name of the loaded library whose name starts with `prefix`, such as
    /// `libxcb.so.1.1.0` for `libxcb.so`: the name carries the version of a library that has no
    /// function to report one. Read from the process's memory map.
    public static func file(named prefix: String) -> String? {
        // Read to the end: a file in /proc says it is empty, so a read of its stated size gets nothing.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/maps"),
              let data = try? file.readToEnd() else { return nil }
        try? file.close()
        let maps = String(decoding: data, as: UTF8.self)
        for line in maps.split(separator: "\n") {
            // The path is the last field, and the only one with a slash.
            guard let start = line.firstIndex(of: "/") else { continue }
            let name = line[start...].split(separator: "/").last.map(String.init) ?? ""
            if name.hasPrefix(prefix) { return name }
        }
        return nil
    }
}
