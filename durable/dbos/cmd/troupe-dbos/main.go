// Command troupe-dbos runs Troupe flows durably on DBOS Transact. The
// troupe command hands `troupe worker|start|result|feedback|runs|status|watch|cancel|recover
// --dbos DSN ...` over to it when it is on PATH.
//
//	troupe-dbos worker --dbos DSN [--executor ID] [--lease-ttl 30s] FLOW...
//	troupe-dbos start --dbos DSN FLOW [OTHER_FLOW...] [--inputs JSON] [--id ID]
//	troupe-dbos result --dbos DSN ID
//	troupe-dbos feedback --dbos DSN ID --method M --feedback TEXT
//	troupe-dbos runs --dbos DSN [--status S] [--flow F] [--limit N]
//	troupe-dbos status --dbos DSN ID
//	troupe-dbos watch --dbos DSN ID
//	troupe-dbos cancel --dbos DSN ID
//	troupe-dbos recover --dbos DSN EXECUTOR...
//
// Workers and clients share an application version: by default one
// derived from the definitions of the flows given (troupedbos.AppVersion),
// so a start must name the same flow files as the workers serve.
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
	cmd.Flags().StringVar(&c.version, "app-version", "", "the application version workers and clients share (default: derived from the flows' definitions)")
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
	root.AddCommand(workerCmd(), startCmd(), resultCmd(), feedbackCmd(), runsCmd(),
		statusCmd(), watchCmd(), cancelCmd(), recoverCmd())
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
	var leaseTTL, sweepEvery time.Duration
	cmd := &cobra.Command{Use: "worker --dbos DSN FLOW...", Short: "Serve runs of the given flows", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			defs, err := loadFlows(files)
			if err != nil {
				return err
			}
			flows := map[string]*flow.Definition{}
			for _, def := range defs {
				flows[def.Name] = def
			}
			if c.version == "" {
				c.version = troupedbos.AppVersion("troupe", defs...)
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
			if leaseTTL > 0 {
				l, err := troupedbos.StartLease(ctx, dctx, troupedbos.LeaseOptions{DatabaseURL: c.dsn, TTL: leaseTTL,
					SweepInterval: sweepEvery, Logger: logger()})
				if err != nil {
					return err
				}
				defer l.Stop()
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "troupe-dbos: worker %s (version %s) serving %d flows on queue %s\n",
				executor, c.version, len(flows), c.queue)
			<-ctx.Done()
			return transact.Shutdown(dctx, 30*time.Second)
		}}
	c.bind(cmd)
	cmd.Flags().StringVar(&executor, "executor", hostname(), "this worker's executor id (stable per machine)")
	cmd.Flags().IntVar(&concurrency, "concurrency", 10, "runs this worker runs at once")
	cmd.Flags().StringVar(&llmScript, "llm-script", "", "answer model calls from a fake script (for tests)")
	cmd.Flags().DurationVar(&leaseTTL, "lease-ttl", 30*time.Second, "the executor lease: once it expires another worker takes this one's runs over (0: no lease)")
	cmd.Flags().DurationVar(&sweepEvery, "sweep-interval", 0, "how often the lease is renewed and expired ones looked for (default: lease-ttl/3)")
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
	cmd := &cobra.Command{Use: "start --dbos DSN FLOW [OTHER_FLOW...]", Short: "Start a run of FLOW and print its id (the other flows are the rest of the workers' flows, for the version)",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			defs, err := loadFlows(args)
			if err != nil {
				return err
			}
			def := defs[0]
			if c.version == "" {
				c.version = troupedbos.AppVersion("troupe", defs...)
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
			if err := cl.EnqueueDefinition(c.queue, def, in, id); err != nil {
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
