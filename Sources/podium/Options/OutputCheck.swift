import Foundation
import PodiumCore

/// Checks that an output file may be created, before anything is opened or written.
enum OutputCheck {
    /// - Throws: 73 when the file exists (and `overwrite` is off), its folder is missing, or it
    ///   cannot be written there.
    static func creatable(_ path: String, flag: String, overwrite: Bool) throws(PodiumError) {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue { throw .cannotCreate("\(flag) '\(path)' is a folder") }
            guard overwrite else { throw .cannotCreate("\(flag) '\(path)' exists; pass --overwrite to replace it") }
            guard manager.isWritableFile(atPath: path) else { throw .cannotCreate("\(flag) '\(path)' is not writable") }
            return
        }
        let folder = (path as NSString).deletingLastPathComponent
        let parent = folder.isEmpty ? "." : folder
        guard manager.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
            throw .cannotCreate("\(flag) '\(path)': folder '\(parent)' does not exist")
        }
        guard manager.isWritableFile(atPath: parent) else {
            throw .cannotCreate("\(flag) '\(path)': folder '\(parent)' is not writable")
        }
    }
}
