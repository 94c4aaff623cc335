import Foundation
import PodiumCLI

// The program is PodiumCLI's, where the tests reach its commands without starting a process.
exit(await PodiumProgram.run(Array(CommandLine.arguments.dropFirst())))
