import Foundation
import PodiumCore

extension RemoteInput {
    /// The most events one request carries.
    static let mostInARequest = 128

    /// Reads a batch of the page's events: `{"seq": N, "events": [...]}`, the batch's number and a
    /// list of `["m", x, y]` (the pointer to a place of the picture, 0 to 1), `["b", button, 1|0]`
    /// (a button down or up) and `["k", key, 1|0]` (a key as the browser names it). Places are kept
    /// within the picture; keys without a keysym are left out.
    /// - Returns: `nil` when it is not such a batch, or a longer one.
    static func batch(fromJSON data: Data) -> (number: UInt64, events: [RemoteInput])? {
        guard let batch = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let number = (batch["seq"] as? NSNumber)?.doubleValue, number >= 0, number < 0x1p53,
              let list = batch["events"] as? [[Any]], list.count <= mostInARequest else { return nil }
        var events: [RemoteInput] = []
        for item in list {
            switch (item.first as? String, item.count) {
            case ("m", 3):
                guard let x = (item[1] as? NSNumber)?.doubleValue, let y = (item[2] as? NSNumber)?.doubleValue,
                      x.isFinite, y.isFinite else { return nil }
                events.append(.move(x: min(1, max(0, x)), y: min(1, max(0, y))))
            case ("b", 3):
                guard let button = (item[1] as? NSNumber)?.intValue, let down = (item[2] as? NSNumber)?.intValue
                else { return nil }
                events.append(.button(button, down: down != 0))
            case ("k", 3):
                guard let name = item[1] as? String, let down = (item[2] as? NSNumber)?.intValue else { return nil }
                if let keysym = keysym(named: name) { events.append(.key(keysym, down: down != 0)) }
            default:
                return nil
            }
        }
        return (UInt64(number), events)
    }
}
