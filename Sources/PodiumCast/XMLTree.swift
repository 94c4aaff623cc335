import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A small XML document read whole (a device's description, a SOAP answer), its element names
/// without their namespace prefixes. Documents that declare a DTD are refused: UPnP needs none,
/// and a DTD is where entity expansions ("billion laughs") and external entities hide.
struct XMLTree: Sendable {
    var name: String
    var text = ""
    var children: [XMLTree] = []

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads `data`.
    /// - Throws: for a DTD, or XML that does not parse.
    init(parsing data: [UInt8]) throws(Failure) {
        if data.firstRange(of: Array("<!DOCTYPE".utf8)) != nil || data.firstRange(of: Array("<!ENTITY".utf8)) != nil {
            throw Failure(description: "it declares a DTD (entities), which UPnP never needs; not read")
        }
        let reader = Reader()
        let parser = XMLParser(data: Data(data))
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse(), let root = reader.root else {
            throw Failure(description: "not XML: \(parser.parserError.map { "\($0.localizedDescription)" } ?? "empty")")
        }
        self = root
    }

    private init(name: String) { self.name = name }

    /// The first element named `name` at any depth, this one first.
    func first(_ name: String) -> XMLTree? {
        if self.name == name { return self }
        for child in children {
            if let found = child.first(name) { return found }
        }
        return nil
    }

    /// Every element named `name` at any depth.
    func all(_ name: String) -> [XMLTree] {
        (self.name == name ? [self] : []) + children.flatMap { $0.all(name) }
    }

    /// The text of the first element named `name`, trimmed; `nil` when there is none.
    func value(_ name: String) -> String? {
        first(name).map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// `text` with the five characters XML reserves escaped.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    /// Builds the tree as the parser reads; confined to the parsing call.
    private final class Reader: NSObject, XMLParserDelegate {
        var stack: [XMLTree] = []
        var root: XMLTree?

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
            stack.append(XMLTree(name: local))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
        }
    }
}
