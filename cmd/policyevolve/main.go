package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(runMain(os.Args[1:])) }

// runMain runs the command line args with the process's signals caught,
// and returns the exit code.
func runMain(args []string) int {
	ctx, cancel := context.WithCancel(context.Background())
	interrupts := make(chan os.Signal, 2)
	signal.Notify(interrupts, os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first interrupt asks a long job to stop at a safe point, or
		// cancels a command that has none; the second always cancels.
		<-interrupts
		if !softStop() {
			cancel()
		}
		<-interrupts
		cancel()
	}()
	code := dispatch(ctx, args, os.Stdout, os.Stderr)
	cancel()
	signal.Stop(interrupts)
	return code
}
