import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A chart read back by Foundation's XML parser (a real one: a stray `<` or `&` fails it), as a tree.
struct SVGDocument {
    /// One element: its name, its attributes, its child elements and the text directly inside it.
    final class Element {
        let name: String
        let attributes: [String: String]
        fileprivate(set) var children: [Element] = []
        fileprivate(set) var text = ""

        init(name: String, attributes: [String: String]) {
            self.name = name
            self.attributes = attributes
        }

        /// Every element below this one whose `class` is `className`, in document order.
        func descendants(class className: String) -> [Element] {
            children.flatMap { ($0.attributes["class"] == className ? [$0] : []) + $0.descendants(class: className) }
        }
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    let root: Element

    init(_ text: String) throws {
        let parser = XMLParser(data: Data(text.utf8))
        let builder = TreeBuilder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw ParseError(description: "not XML: \(parser.parserError.map { "\($0)" } ?? "no root")")
        }
        self.root = root
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: Element?
        private var open: [Element] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            let element = Element(name: elementName, attributes: attributes)
            if let parent = open.last { parent.children.append(element) } else { root = element }
            open.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?) {
            open.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            open.last?.text += string
        }
    }
}
