package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/spf13/cobra"

	troupedbos "github.com/troupe-dev/troupe/durable/dbos"
	"github.com/troupe-dev/troupe/flow"
)

// loadFlows loads flow files in order.
func loadFlows(files []string) ([]*flow.Definition, error) {
	defs := make([]*flow.Definition, 0, len(files))
	for _, f := range files {
		def, err := flow.Load(f)
		if err != nil {
			return nil, err
		}
		defs = append(defs, def)
	}
	return defs, nil
}

// withClient runs fn with a client on c's database.
func (c *common) withClient(ctx context.Context, fn func(*troupedbos.Client) error) error {
	cl, dc, err := c.client(ctx)
	if err != nil {
		return err
	}
	defer transact.Shutdown(dc, 5*time.Second)
	return fn(cl)
}

func runsCmd() *cobra.Command {
	var c common
	var f troupedbos.RunFilter
	cmd := &cobra.Command{Use: "runs --dbos DSN", Short: "List runs, newest first: id, flow, status, executor, updated", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withClient(cmd.Context(), func(cl *troupedbos.Client) error {
				runs, err := cl.Runs(f)
				if err != nil {
					return err
				}
				for _, r := range runs {
					fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Flow, r.Status, r.Executor,
						r.Updated.UTC().Format(time.RFC3339))
				}
				return nil
			})
		}}
	c.bind(cmd)
	cmd.Flags().StringVar(&f.Status, "status", "", "only runs in this DBOS status (PENDING, ENQUEUED, SUCCESS, ERROR, CANCELLED)")
	cmd.Flags().StringVar(&f.Flow, "flow", "", "only runs of this flow")
	cmd.Flags().IntVar(&f.Limit, "limit", 0, "at most this many runs (0: all)")
	return cmd
}

func statusCmd() *cobra.Command {
	var c common
	cmd := &cobra.Command{Use: "status --dbos DSN ID", Short: "Print a run's status as JSON (phase, running methods, pending feedback)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withClient(cmd.Context(), func(cl *troupedbos.Client) error {
				st, err := cl.Status(args[0])
				if err != nil {
					return err
				}
				return json.NewEncoder(cmd.OutOrStdout()).Encode(st)
			})
		}}
	c.bind(cmd)
	return cmd
}

func watchCmd() *cobra.Command {
	var c common
	cmd := &cobra.Command{Use: "watch --dbos DSN ID", Short: "Print a run's method events as JSON lines until it ends", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withClient(cmd.Context(), func(cl *troupedbos.Client) error {
				enc := json.NewEncoder(cmd.OutOrStdout())
				return cl.Watch(cmd.Context(), args[0], func(e troupedbos.RunEvent) error { return enc.Encode(e) })
			})
		}}
	c.bind(cmd)
	return cmd
}

func cancelCmd() *cobra.Command {
	var c common
	cmd := &cobra.Command{Use: "cancel --dbos DSN ID", Short: "Cancel a run", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withClient(cmd.Context(), func(cl *troupedbos.Client) error { return cl.Cancel(args[0]) })
		}}
	c.bind(cmd)
	return cmd
}

func recoverCmd() *cobra.Command {
	var c common
	cmd := &cobra.Command{Use: "recover --dbos DSN EXECUTOR...", Short: "Hand the unfinished runs of dead executors to live workers; print their ids",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withClient(cmd.Context(), func(cl *troupedbos.Client) error {
				ids, err := cl.Recover(args...)
				for _, id := range ids {
					fmt.Fprintln(cmd.OutOrStdout(), id)
				}
				return err
			})
		}}
	c.bind(cmd)
	return cmd
}
