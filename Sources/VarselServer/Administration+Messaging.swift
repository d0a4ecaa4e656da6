import Foundation
import VarselMessaging

/// The command line's text-message and email settings, read and checked in one place, each refusal one sentence.
extension Administration {
    /// The messaging configuration `serve` was given: an SMTP server when `smtpHost` is set, a gateway when
    /// `smsGatewayURL` is. Secrets come from files or the environment, never from arguments.
    public static func messaging(
        smtpHost: String?, smtpPort: Int?, smtpSecurity: String, smtpUsername: String?, smtpPasswordFile: String?,
        smtpCAFile: String?, mailFrom: String?, smsGatewayURL: String?, smsGatewayFormat: String,
        smsGatewayTokenFile: String?, smsSender: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> MessagingConfiguration {
        var configuration = MessagingConfiguration()
        if let smtpHost {
            guard let security = SMTPConfiguration.Security(rawValue: smtpSecurity) else {
                throw Failure("--smtp-security must be starttls, tls or none.")
            }
            let isLocal = ["localhost", "127.0.0.1", "::1"].contains(smtpHost.lowercased())
            guard security != .none || isLocal else {
                throw Failure("--smtp-security none is only for an SMTP server on this machine: use starttls or tls.")
            }
            let port = smtpPort ?? (security == .implicitTLS ? 465 : security == .none ? 25 : 587)
            guard (1...65535).contains(port) else { throw Failure("--smtp-port must be a port number from 1 to 65535.") }
            var password: String?
            if let smtpPasswordFile {
                password = try secret(in: smtpPasswordFile, option: "--smtp-password-file")
            } else if let value = environment["VARSEL_SMTP_PASSWORD"], !value.isEmpty {
                password = value
            }
            if smtpUsername != nil, password == nil {
                throw Failure("--smtp-username needs a password: give --smtp-password-file or set VARSEL_SMTP_PASSWORD.")
            }
            if let smtpCAFile, !FileManager.default.isReadableFile(atPath: smtpCAFile) {
                throw Failure("Could not read --smtp-ca-file: check that the file exists and can be read.")
            }
            guard let from = mailFrom.flatMap(Self.mailbox) else {
                throw Failure(
                    "--mail-from must be an email address, or a name and an address such as \"Varsel <varsel@example.org>\", when --smtp-host is given."
                )
            }
            configuration.mailFromName = from.name
            configuration.mailFromAddress = from.address
            configuration.smtp = SMTPConfiguration(
                host: smtpHost, port: port, security: security, username: smtpUsername, password: password,
                trustRootsFile: smtpCAFile)
        }
        if let smsGatewayURL {
            // The token goes with every request: over plain http only to a gateway (a relay, a test's stand-in) on this machine.
            guard let url = URL(string: smsGatewayURL), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
                scheme == "https" || (scheme == "http" && ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host))
            else {
                throw Failure("--sms-gateway-url must be an https URL, such as https://gateway.example/sms (http only to this machine).")
            }
            guard let format = HTTPTextMessageGateway.Format(rawValue: smsGatewayFormat) else {
                throw Failure("--sms-gateway-format must be json or form.")
            }
            let token: String
            if let smsGatewayTokenFile {
                token = try secret(in: smsGatewayTokenFile, option: "--sms-gateway-token-file")
            } else if let value = environment["VARSEL_SMS_GATEWAY_TOKEN"], !value.isEmpty {
                token = value
            } else {
                throw Failure("--sms-gateway-url needs a token: give --sms-gateway-token-file or set VARSEL_SMS_GATEWAY_TOKEN.")
            }
            guard !smsSender.isEmpty, smsSender.count <= 11,
                smsSender.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
                    || (smsSender.hasPrefix("+") && smsSender.dropFirst().allSatisfy(\.isNumber) && smsSender.count <= 16)
            else {
                throw Failure("--sms-sender must be up to 11 letters and digits, or a number starting with +.")
            }
            configuration.textMessages = HTTPTextMessageGateway.Configuration(url: url, format: format, token: token, sender: smsSender)
        }
        return configuration
    }

    /// The first line of `file`, trimmed: a password or a token.
    static func secret(in file: String, option: String) throws -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
            let line = text.split(whereSeparator: \.isNewline).first.map({ $0.trimmingCharacters(in: .whitespaces) }), !line.isEmpty
        else {
            throw Failure("Could not read \(option): check that the file exists, can be read and holds the secret on its first line.")
        }
        return line
    }

    /// `Varsel <varsel@example.org>` or `varsel@example.org` as a name and an address; nil for anything else.
    static func mailbox(_ text: String) -> (name: String, address: String)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var name = "Varsel"
        var address = trimmed
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            name = trimmed[..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !address.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" }),
            !name.contains(where: \.isNewline)
        else { return nil }
        return (name.isEmpty ? "Varsel" : name, address)
    }
}
