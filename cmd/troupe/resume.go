package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/store"
)

type resumeFlags struct {
	runFlags
	id       string
	feedback string
	force    bool
}

func newResumeCmd() *cobra.Command {
	var f resumeFlags
	cmd := &cobra.Command{
		Use:   "resume [FILE] --id ID [--feedback TEXT]",
		Short: "Continue a stored run: one paused for human feedback, or one whose process stopped",
		Long: "Continue a stored run of the flow in FILE (default ./flow.yaml): one paused for\n" +
			"human feedback, answered with --feedback (empty: the default outcome; on a\n" +
			"terminal without --feedback, troupe asks), or one whose process stopped between\n" +
			"methods. Methods that completed before are not run again; their outputs are\n" +
			"available to the methods that follow. The result prints as with `troupe run`.\n\n" +
			"A run is resumed by one process at a time: while another resume of it, or its\n" +
			"first run, is still going, resume fails. A definition edited since the run was\n" +
			"saved is refused unless --force is given.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return resumeFlow(cmd, flowPath(args), f)
		},
	}
	cmd.Flags().StringVar(&f.id, "id", "", "the flow id of the run (see `troupe runs`)")
	cmd.Flags().StringVar(&f.feedback, "feedback", "", "the answer to the question the run paused on")
	cmd.Flags().BoolVar(&f.force, "force", false, "resume even though the definition changed since the run was saved")
	addEngineFlags(cmd, &f.runFlags)
	_ = cmd.MarkFlagRequired("id")
	return cmd
}

func resumeFlow(cmd *cobra.Command, path string, f resumeFlags) error {
	stderr := cmd.ErrOrStderr()
	def, err := loadDefinition(path, stderr, f.runFlags)
	if err != nil {
		return err
	}
	s, err := newSession(cmd, f.runFlags, def)
	if err != nil {
		return err
	}
	defer s.close()
	ctx, stop := interruptible(cmd.Context())
	defer stop()

	feedback := f.feedback
	if !cmd.Flags().Changed("feedback") && s.asker != nil {
		// Ask the question the run waits on, when the store holds it.
		snap, err := s.stores.store(f.store).Load(ctx, f.id)
		if err == nil && snap.Status == store.StatusPaused && snap.Pending != nil {
			pf := snap.Pending
			answer, err := s.asker.RequestFeedback(ctx, &flow.FeedbackRequest{
				FlowID: f.id, Flow: snap.Flow, Method: pf.Method, Output: pf.Output, Message: pf.Message,
				Emit: pf.Emit, DefaultOutcome: pf.DefaultOutcome, Metadata: pf.Metadata,
			})
			if errors.Is(err, flow.ErrPending) {
				reportPause(stderr, snap.Flow, f.id, pf, resumeCommand(path, f.id, f.runFlags))
				return exitError{exitPaused}
			}
			if err != nil {
				return interrupted(ctx, err)
			}
			feedback = answer
		}
	}
	res, err := s.engine.Resume(ctx, def, flow.ResumeRequest{FlowID: f.id, Feedback: feedback, Force: f.force})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("No stored run of flow %s with id %q; `troupe runs` lists the stored runs.", def.Name, f.id)
	case errors.Is(err, store.ErrClaimed):
		return fmt.Errorf("run %s of flow %s is being resumed or is still running elsewhere; try again when it has stopped: %w", f.id, def.Name, err)
	}
	return s.finish(ctx, cmd, path, def, res, err)
}
