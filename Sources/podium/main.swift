import Foundation
import PodiumCLI

// The program is PodiumCLI's, where the tests reach its commands without starting a process.
exit(await PodiumProgram.main(Array(CommandLine.arguments.dropFirst())))
