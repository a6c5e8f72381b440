package main

// The commands forgectl hands to its sibling binaries, each with its own
// release cadence: forgectl only finds and execs them (see dispatch), and
// completes their words from what is declared here (TestCompletionSiblings
// checks it against each sibling's --help).

// sibling is a command another binary runs.
type sibling struct {
	// binary runs the command, lead its arguments before the user's; ""
	// for the snapshot, which forgectl runs in-process (see dispatch).
	binary string
	lead   []string
	// flags and subs are what completion offers.
	flags []compFlag
	subs  []*compNode
}

func siblingFlag(name, desc string) compFlag { return compFlag{name: name, desc: desc} }

func helpFlag() compFlag { return compFlag{name: "help", desc: "print the manual"} }

func snapshotCommand() *command {
	return &command{
		name: "snapshot", desc: "capture live sessions (the Stop hook)",
		usage:   []usageLine{{"forgectl resume snapshot", "capture what a live session's exit would destroy (Stop hook)"}},
		sibling: &sibling{flags: []compFlag{siblingFlag("quiet", "print nothing"), siblingFlag("version", "print the version"), helpFlag()}},
	}
}

func outdatedCommand() *command {
	return &command{
		name: "outdated", desc: "live sessions running an older claude",
		usage:   []usageLine{{"forgectl resume outdated", "list live sessions running an older claude"}},
		sibling: &sibling{binary: "resume-restart", lead: []string{"outdated"}, flags: []compFlag{siblingFlag("json", "print a JSON array"), helpFlag()}},
	}
}

func restartCommand() *command {
	return &command{
		name: "restart", desc: "restart outdated sessions in their herdr panes",
		usage: []usageLine{{"forgectl resume restart", "restart outdated sessions in their herdr panes"}},
		sibling: &sibling{binary: "resume-restart", lead: []string{"restart"}, flags: []compFlag{
			siblingFlag("outdated", "act on the sessions resume outdated lists"),
			{name: "session", desc: "narrow the set to this session id", takesValue: true, values: completeLive},
			{name: "timeout", desc: "how long to wait for sessions to become safe to stop", takesValue: true},
			siblingFlag("dry-run", "print the plan; reads only"), siblingFlag("json", "print the outcomes as JSON"), helpFlag(),
		}},
	}
}

func hooksCommand() *command {
	return &command{
		name: "hooks", desc: "update hooks: run, status, install",
		usage: []usageLine{{"forgectl resume hooks", "run hooks when claude updates (run, install, status)"}},
		sibling: &sibling{binary: "resume-hooks", flags: []compFlag{siblingFlag("version", "print the version"), helpFlag()}, subs: []*compNode{
			{name: "run", desc: "fire the hooks if claude changed version", flags: []compFlag{siblingFlag("dry-run", "show what would fire; start nothing"), helpFlag()}},
			{name: "status", desc: "watcher, versions and last runs", flags: []compFlag{siblingFlag("json", "print one JSON object"), helpFlag()}},
			{name: "install", desc: "install the watcher", flags: []compFlag{siblingFlag("dry-run", "print the files; write nothing"), helpFlag()}},
			{name: "uninstall", desc: "remove the watcher", flags: []compFlag{helpFlag()}},
		}},
	}
}
