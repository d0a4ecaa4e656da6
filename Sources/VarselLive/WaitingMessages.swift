import VarselService

/// The messages a live stream has taken and not yet answered, first in first out, holding no memory while none wait.
///
/// Almost always a stream answers what it takes at once, so this is empty for nearly all of a stream's life; an idle
/// stream should cost its server as little as possible, and a ring buffer keeps its storage even when empty. Messages
/// handed over together are kept in the array they came in (no copy) and read from the front; once all are answered,
/// the array is let go.
struct WaitingMessages {
    private var messages: [StreamMessage] = []
    /// Where the first message not yet answered is in ``messages``.
    private var next = 0

    /// How many wait.
    var count: Int { messages.count - next }

    /// Adds `newMessages` behind those that wait.
    mutating func append(_ newMessages: [StreamMessage]) {
        if count == 0 {
            messages = newMessages
            next = 0
        } else {
            messages.append(contentsOf: newMessages)
        }
    }

    /// Takes the first message that waits, if one does.
    mutating func popFirst() -> StreamMessage? {
        guard next < messages.count else { return nil }
        let message = messages[next]
        next += 1
        if next == messages.count { removeAll() }
        return message
    }

    /// Lets every waiting message go.
    mutating func removeAll() {
        messages = []
        next = 0
    }
}
