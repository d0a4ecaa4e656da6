import ArgumentParser
import VarselCore

/// The `varsel` command: the transcript today, the server and user administration with the service.
@main
struct Varsel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "varsel",
        abstract: "An accessible notification centre for peer mentors who use a screen reader.",
        subcommands: [TranscriptCommand.self]
    )
}

extension Language: ExpressibleByArgument {}
extension ScreenReader: ExpressibleByArgument {}

/// Prints what a screen reader says on the demo notification centre.
struct TranscriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print what a screen reader says on the demo notification centre, then a timed announcement simulation."
    )

    @Option(help: "The language: en or nb.")
    var locale: Language = .english

    @Option(help: "The screen reader: voiceover, talkback or web.")
    var reader: ScreenReader = .voiceOver

    func run() throws {
        print(Transcript(language: locale, reader: reader).render(), terminator: "")
    }
}
