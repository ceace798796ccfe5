// Command policyevolve evolves programmatic policies for Sequential Social
// Dilemmas. Run "policyevolve help" for the subcommands.
//
// Each subcommand is a file of its own, cmd_NAME.go: its flags, parsed
// into an options struct, and a call into the library (runNAME, which a
// test can call). Flag groups shared by several commands are in
// flags_GROUP.go; commands.go lists the commands and turns their errors
// into messages and exit codes; main.go catches the signals.
package main
