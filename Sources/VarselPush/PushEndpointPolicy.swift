import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Which push endpoints the server will POST to: https only, and never an address inside the server's own
/// networks, so a subscription cannot turn the server into a probe of them (SSRF).
///
/// Tests run a stand-in push service on loopback: `--push-allow-http-endpoints` lifts both rules.
public struct PushEndpointPolicy: Sendable {
    /// Accept `http:` endpoints and private, loopback and link-local addresses. For tests only.
    public var allowsInsecureEndpoints: Bool
    /// The longest endpoint accepted.
    public static let maximumLength = 2048

    public init(allowsInsecureEndpoints: Bool = false) {
        self.allowsInsecureEndpoints = allowsInsecureEndpoints
    }

    /// Why an endpoint was refused; the message names the rule, never the endpoint.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Networks no push service lives in: this host, private and shared networks, link-local, multicast, reserved.
    static let refusedNetworks: [CIDR] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/128", "::1/128", "64:ff9b::/96", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "ff00::/8",
    ].compactMap { CIDR($0) }

    /// Checks the endpoint's form: an absolute https URL with a public host name or address, no user name or
    /// password, no fragment. Returns the parsed URL.
    public func check(_ endpoint: String) throws(Refusal) -> URL {
        guard endpoint.utf8.count <= Self.maximumLength else {
            throw Refusal(description: "The endpoint is longer than \(Self.maximumLength) characters.")
        }
        guard let components = URLComponents(string: endpoint), let url = components.url,
            let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else {
            throw Refusal(description: "The endpoint must be an absolute URL, such as the one PushSubscription.endpoint gives.")
        }
        guard scheme == "https" || (scheme == "http" && allowsInsecureEndpoints) else {
            throw Refusal(description: "The endpoint must use https.")
        }
        guard components.user == nil, components.password == nil, components.fragment == nil else {
            throw Refusal(description: "The endpoint must not carry a user name, password or fragment.")
        }
        guard !allowsInsecureEndpoints else { return url }
        let bareHost = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bareHost == "localhost" || bareHost.hasSuffix(".localhost") || bareHost.hasSuffix(".local") || bareHost.hasSuffix(".internal")
            || !bareHost.contains(where: { $0 == "." || $0 == ":" })
        {
            throw Refusal(description: "The endpoint's host must be a public push service.")
        }
        if CIDR.parseAddress(bareHost) != nil, Self.isRefused(address: bareHost) {
            throw Refusal(description: "The endpoint's address is in a private or reserved network.")
        }
        return url
    }

    /// Checks what the endpoint's host resolves to now: every address must be public. Run before each push,
    /// so a name that later points inside the network is refused then.
    public func checkResolved(_ url: URL) async throws(Refusal) {
        guard !allowsInsecureEndpoints, let host = url.host else { return }
        let bareHost = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let addresses = await Self.resolve(bareHost)
        guard !addresses.isEmpty else { throw Refusal(description: "The endpoint's host name does not resolve.") }
        if addresses.contains(where: Self.isRefused(address:)) {
            throw Refusal(description: "The endpoint's host resolves to a private or reserved address.")
        }
    }

    static func isRefused(address: String) -> Bool {
        refusedNetworks.contains { $0.contains(address) }
    }

    /// The host's addresses as text, from the system resolver, off the caller's thread.
    static func resolve(_ host: String) async -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo()
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                var list: UnsafeMutablePointer<addrinfo>?
                guard getaddrinfo(host, nil, &hints, &list) == 0 else { return continuation.resume(returning: []) }
                defer { freeaddrinfo(list) }
                var addresses: [String] = []
                var cursor = list
                while let entry = cursor {
                    var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                    if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                        addresses.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                    }
                    cursor = entry.pointee.ai_next
                }
                continuation.resume(returning: addresses)
            }
        }
    }
}
