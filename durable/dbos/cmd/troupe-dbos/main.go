// Command troupe-dbos runs Troupe flows durably on DBOS Transact. The
// troupe command hands `troupe worker|start|result|feedback|runs --dbos
// DSN ...` over to it when it is on PATH.
//
//	troupe-dbos worker --dbos DSN [--executor ID] FLOW...
//	troupe-dbos start --dbos DSN FLOW [--inputs JSON] [--id ID]
//	troupe-dbos result --dbos DSN ID
//	troupe-dbos feedback --dbos DSN ID --method M --feedback TEXT
//	troupe-dbos runs --dbos DSN
//
// DSN is a PostgreSQL URL (postgres://...) or, for one machine,
// sqlite:///path/to/file.db.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	transact "github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/dbos-inc/dbos-transact-golang/dbos/driver/sqlite"
	"github.com/spf13/cobra"

	"github.com/troupe-dev/troupe/durable"
	troupedbos "github.com/troupe-dev/troupe/durable/dbos"
	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/fake"
	"github.com/troupe-dev/troupe/llm/providers"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// common are the flags every command takes.
type common struct {
	dsn, app, version, queue string
}

func (c *common) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.dsn, "dbos", "", "the DBOS system database: postgres://... or sqlite:///file.db")
	cmd.Flags().StringVar(&c.app, "app", "troupe", "the DBOS application name")
	cmd.Flags().StringVar(&c.version, "app-version", "troupe", "the application version workers and clients share")
	cmd.Flags().StringVar(&c.queue, "queue", "troupe-runs", "the queue runs go on")
	_ = cmd.MarkFlagRequired("dbos")
}

func (c *common) client(ctx context.Context) (*troupedbos.Client, transact.Client, error) {
	dc, err := transact.NewClient(ctx, transact.ClientConfig{DatabaseURL: c.dsn, AppName: c.app, Logger: logger()})
	if err != nil {
		return nil, nil, err
	}
	return troupedbos.NewClient(dc, c.version), dc, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{Use: "troupe-dbos", Short: "Run Troupe flows durably on DBOS Transact", SilenceUsage: true, SilenceErrors: true}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(workerCmd(), startCmd(), resultCmd(), feedbackCmd(), runsCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(stderr, "troupe-dbos:", err)
		return 1
	}
	return 0
}

func workerCmd() *cobra.Command {
	var c common
	var executor, llmScript string
	var concurrency int
	cmd := &cobra.Command{Use: "worker --dbos DSN FLOW...", Short: "Serve runs of the given flows", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			flows := map[string]*flow.Definition{}
			for _, f := range files {
				def, err := flow.Load(f)
				if err != nil {
					return err
				}
				flows[def.Name] = def
			}
			opts := []flow.Option{flow.WithModels(providers.Default(os.Getenv))}
			if m := providers.DefaultModel(os.Getenv); m != "" {
				opts = append(opts, flow.WithDefaultModel(m))
			}
			if llmScript != "" {
				m, err := fake.Load(llmScript)
				if err != nil {
					return err
				}
				opts = []flow.Option{flow.WithLLM(m)}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			dctx, err := transact.NewContext(ctx, transact.Config{AppName: c.app, DatabaseURL: c.dsn, ApplicationVersion: c.version, ExecutorID: executor, Logger: logger()})
			if err != nil {
				return err
			}
			if _, err := troupedbos.NewWorker(dctx, troupedbos.Options{Flows: flows, Engine: opts, Queue: c.queue, WorkerConcurrency: concurrency}); err != nil {
				return err
			}
			if err := transact.Launch(dctx); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "troupe-dbos: worker %s serving %d flows on queue %s\n", executor, len(flows), c.queue)
			<-ctx.Done()
			return transact.Shutdown(dctx, 30*time.Second)
		}}
	c.bind(cmd)
	cmd.Flags().StringVar(&executor, "executor", hostname(), "this worker's executor id (stable per machine)")
	cmd.Flags().IntVar(&concurrency, "concurrency", 10, "runs this worker runs at once")
	cmd.Flags().StringVar(&llmScript, "llm-script", "", "answer model calls from a fake script (for tests)")
	return cmd
}

// logger sends DBOS's logs to stderr, keeping stdout for results.
func logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "local"
	}
	return h
}

func startCmd() *cobra.Command {
	var c common
	var inputs, id string
	cmd := &cobra.Command{Use: "start --dbos DSN FLOW", Short: "Start a run and print its id", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			def, err := flow.Load(args[0])
			if err != nil {
				return err
			}
			in := map[string]any{}
			if inputs != "" {
				v, err := durable.DecodeValue([]byte(inputs)) // keeps integers
				m, ok := v.(map[string]any)
				if err != nil || !ok {
					return fmt.Errorf("--inputs: want a JSON object, got %q", inputs)
				}
				in = m
			}
			if id == "" {
				b := make([]byte, 16)
				_, _ = rand.Read(b)
				id = hex.EncodeToString(b)
			}
			cl, dc, err := c.client(cmd.Context())
			if err != nil {
				return err
			}
			defer transact.Shutdown(dc, 5*time.Second)
			if err := cl.Enqueue(c.queue, def.Name, in, id); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), id)
			return nil
		}}
	c.bind(cmd)
	cmd.Flags().StringVar(&inputs, "inputs", "", "the run's inputs as a JSON object")
	cmd.Flags().StringVar(&id, "id", "", "the run id (default: a random one)")
	return cmd
}

func resultCmd() *cobra.Command {
	var c common
	cmd := &cobra.Command{Use: "result --dbos DSN ID", Short: "Wait for a run and print its output as JSON", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, dc, err := c.client(cmd.Context())
			if err != nil {
				return err
			}
			defer transact.Shutdown(dc, 5*time.Second)
			out, err := cl.Result(args[0])
			if err != nil {
				return err
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(flow.Data(out))
		}}
	c.bind(cmd)
	return cmd
}

func feedbackCmd() *cobra.Command {
	var c common
	var method, text string
	cmd := &cobra.Command{Use: "feedback --dbos DSN ID --method M --feedback TEXT", Short: "Answer a run's human feedback request", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, dc, err := c.client(cmd.Context())
			if err != nil {
				return err
			}
			defer transact.Shutdown(dc, 5*time.Second)
			return cl.Feedback(args[0], method, text)
		}}
	c.bind(cmd)
	cmd.Flags().StringVar(&method, "method", "", "the method whose feedback this answers")
	cmd.Flags().StringVar(&text, "feedback", "", "the answer")
	_ = cmd.MarkFlagRequired("method")
	return cmd
}

func runsCmd() *cobra.Command {
	var c common
	cmd := &cobra.Command{Use: "runs --dbos DSN", Short: "List runs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dc, err := transact.NewClient(cmd.Context(), transact.ClientConfig{DatabaseURL: c.dsn, AppName: c.app, Logger: logger()})
			if err != nil {
				return err
			}
			defer transact.Shutdown(dc, 5*time.Second)
			runs, err := transact.ListWorkflows(dc, transact.WithFilterName(troupedbos.WorkflowName))
			if err != nil {
				return err
			}
			for _, r := range runs {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\t%s\n", r.ID, r.Status, r.ExecutorID)
			}
			return nil
		}}
	c.bind(cmd)
	return cmd
}
