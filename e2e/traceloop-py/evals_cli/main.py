"""The evals-cli commands, with argparse in place of click and plain text
in place of rich.

Modelled on traceloop/tenant-evals-integration src/evals_cli/main.py:
configure; setup create/list/get/delete; monitoring status; metrics list;
org create; demo (its prompts are options here, with the same defaults).
Every command makes the API calls of the original; --json prints the
answer as JSON. Exit status 1 where the original aborts.
"""

import argparse
import json
import sys
from datetime import datetime

from .api import APIError, AutoMonitorSetupClient, MetricsClient, MonitoringClient, OrganizationClient
from .config import get_config, save_config


class Abort(Exception):
    pass


def _configured():
    config = get_config()
    if not config["auth_token"]:
        print("Error: No auth token configured. Run evals-cli configure to set up authentication.")
        raise Abort()
    return config


def client(cls):
    config = _configured()
    return cls(config["base_url"], config["auth_token"])


def print_json(data):
    print(json.dumps(data, indent=2, sort_keys=True))


def parse_timestamp(value):
    try:
        return int(value)
    except ValueError:
        pass
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"):
        try:
            return int(datetime.strptime(value, fmt).timestamp())
        except ValueError:
            continue
    raise argparse.ArgumentTypeError("Invalid timestamp format: %s. Use epoch seconds or YYYY-MM-DD" % value)


def cmd_configure(args):
    save_config(args.base_url, args.auth_token)
    print("Configuration saved successfully!")


def cmd_setup_create(args):
    if not args.evaluator_id and not args.evaluator_type:
        print("Error: Must specify at least one --evaluator-id or --evaluator-type")
        raise Abort()
    try:
        result = client(AutoMonitorSetupClient).create(
            entity_type=args.entity_type, entity_value=args.entity_value,
            evaluator_ids=args.evaluator_id or None, evaluator_types=args.evaluator_type or None)
    except APIError as e:
        print("Error: %s" % e)
        raise Abort()
    print("Auto-monitor-setup created successfully!")
    print_json(result)


def cmd_setup_list(args):
    try:
        results = client(AutoMonitorSetupClient).list(entity_type=args.entity_type, status=args.status)
    except APIError as e:
        print("Error: %s" % e)
        raise Abort()
    if args.json:
        print_json(results)
        return
    if not results:
        print("No setups found.")
        return
    print("ID\tEntity Type\tEntity Value\tStatus\tEvaluators")
    for setup in results:
        evaluators = setup.get("evaluators", [])
        count = len(evaluators) if isinstance(evaluators, list) else 0
        print("\t".join([setup.get("id", "N/A"), setup.get("entity_type", "N/A"), setup.get("entity_value", "N/A"),
                         setup.get("status", "N/A"), str(count)]))
    print("Total: %d setup(s)" % len(results))


def cmd_setup_get(args):
    try:
        result = client(AutoMonitorSetupClient).get(args.setup_id)
    except APIError as e:
        if e.status_code == 404:
            print("Error: Setup '%s' not found." % args.setup_id)
        else:
            print("Error: %s" % e)
        raise Abort()
    print("Setup: %s" % args.setup_id)
    print_json(result)


def cmd_setup_delete(args):
    if not args.yes:
        answer = input("Are you sure you want to delete setup '%s'? [y/N]: " % args.setup_id)
        if answer.strip().lower() not in ("y", "yes"):
            print("Cancelled.")
            return
    try:
        client(AutoMonitorSetupClient).delete(args.setup_id)
    except APIError as e:
        if e.status_code == 404:
            print("Error: Setup '%s' not found." % args.setup_id)
        else:
            print("Error: %s" % e)
        raise Abort()
    print("Setup '%s' deleted successfully." % args.setup_id)


def cmd_monitoring_status(args):
    try:
        result = client(MonitoringClient).get_status()
    except APIError as e:
        print("Error: %s" % e)
        raise Abort()
    if args.json:
        print_json(result)
        return
    print("Monitoring Status: %s" % result.get("status", "UNKNOWN"))
    print("Organization: %s" % result.get("organization_id", "N/A"))
    if result.get("environment"):
        print("Environment: %s" % result["environment"])
    if result.get("project"):
        print("Project: %s" % result["project"])
    print("Evaluated Up To: %s" % (result.get("evaluated_up_to") or "N/A"))
    print("Latest Span Received: %s" % (result.get("latest_span_received") or "N/A"))
    print("Lag (seconds): %s" % result.get("lag_in_seconds", 0))
    print("Lag (spans): %s" % result.get("lag_in_spans", 0))
    reasons = result.get("reasons", [])
    if reasons:
        print("Reasons: %s" % ", ".join(reasons))


def cmd_metrics_list(args):
    c = client(MetricsClient)
    try:
        if args.unscoped:
            result = c.get_metrics_unscoped(
                from_timestamp_sec=args.from_ts, to_timestamp_sec=args.to_ts, environments=args.environment or None,
                metric_name=args.metric_name, metric_source=args.metric_source, sort_by=args.sort_by,
                sort_order=args.sort_order, limit=args.limit)
        else:
            result = c.get_metrics(
                project_id=args.project_id, from_timestamp_sec=args.from_ts, to_timestamp_sec=args.to_ts,
                environments=args.environment or None, metric_name=args.metric_name, metric_source=args.metric_source,
                sort_by=args.sort_by, sort_order=args.sort_order, limit=args.limit)
    except APIError as e:
        print("Error: %s" % e)
        raise Abort()
    if args.json:
        print_json(result)
        return
    metrics = result.get("metrics", {})
    data = metrics.get("data", [])
    if not data:
        print("No metrics found.")
        return
    for group in data:
        points = group.get("points", [])
        print("%s (%d points)" % (group.get("metric_name", "Unknown"), len(points)))
        for point in points[:10]:
            value = ""
            if point.get("numeric_value") is not None:
                value = str(point["numeric_value"])
            elif point.get("enum_value"):
                value = point["enum_value"]
            elif point.get("bool_value") is not None:
                value = str(point["bool_value"])
            when = datetime.fromtimestamp(point.get("event_time", 0) / 1000).strftime("%Y-%m-%d %H:%M:%S")
            labels = point.get("labels", {})
            print("  %s\t%s\t%s\t%s" % (value, when, labels.get("environment", "N/A"), labels.get("trace_id", "N/A")))
    print("Showing %s points from %s total results" % (metrics.get("total_points", 0), metrics.get("total_results", 0)))


def cmd_org_create(args):
    try:
        result = client(OrganizationClient).create(org_name=args.name, environments=args.env or None)
    except APIError as e:
        if e.status_code == 403:
            print("Error: Not allowed to create organizations.")
        elif e.status_code == 400:
            print("Error: Invalid request - %s" % e.message)
        else:
            print("Error: %s" % e)
        raise Abort()
    if args.json:
        print_json(result)
        return
    print("Organization created successfully!")
    print("Organization ID: %s" % result.get("org_id", "N/A"))
    for env in result.get("environments", []):
        print("%s\t%s" % (env.get("slug", "N/A"), env.get("api_key", "N/A")))
    print("Important: Save these API keys securely. They won't be shown again.")


def cmd_demo(args):
    config = _configured()
    c = AutoMonitorSetupClient(config["base_url"], config["auth_token"])
    print("1. CREATE - POST /v2/auto-monitor-setups")
    setup_id = None
    try:
        result = c.create(entity_type=args.entity_type, entity_value=args.entity_value, evaluator_ids=[args.evaluator_id])
        print("Created successfully!")
        print_json(result)
        setup_id = result.get("id")
    except APIError as e:
        print("Failed: %s" % e)
    print("2. LIST - GET /v2/auto-monitor-setups")
    try:
        results = c.list()
        print("Found %d setup(s)" % len(results))
    except APIError as e:
        print("Failed: %s" % e)
    print("3. LIST with filters")
    try:
        results = c.list(entity_type="agent", status="pending")
        print("Found %d filtered setup(s)" % len(results))
    except APIError as e:
        print("Failed: %s" % e)
    if setup_id:
        print("4. GET BY ID - GET /v2/auto-monitor-setups/%s" % setup_id)
        try:
            c.get(setup_id)
            print("Retrieved successfully!")
        except APIError as e:
            print("Failed: %s" % e)
    print("5. GET non-existent ID (404 test)")
    try:
        c.get("non-existent-id-12345")
        print("Unexpected success")
    except APIError as e:
        if e.status_code == 404:
            print("Correctly returned 404 for non-existent setup")
        else:
            print("Unexpected error: %s" % e)
    print("Demo Complete")


def parser():
    p = argparse.ArgumentParser(prog="evals-cli", description="Evals CLI - Manage auto-monitor-setups and evaluations.")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("configure")
    c.add_argument("--base-url", default="http://localhost:8080")
    c.add_argument("--auth-token", required=True)
    c.set_defaults(func=cmd_configure)

    setup = sub.add_parser("setup").add_subparsers(dest="setup_command", required=True)
    c = setup.add_parser("create")
    c.add_argument("--entity-type", "-t", required=True)
    c.add_argument("--entity-value", "-v", required=True)
    c.add_argument("--evaluator-id", "-e", action="append", default=[])
    c.add_argument("--evaluator-type", "-T", action="append", default=[])
    c.set_defaults(func=cmd_setup_create)
    c = setup.add_parser("list")
    c.add_argument("--entity-type", "-t")
    c.add_argument("--status", "-s")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_setup_list)
    c = setup.add_parser("get")
    c.add_argument("setup_id")
    c.set_defaults(func=cmd_setup_get)
    c = setup.add_parser("delete")
    c.add_argument("setup_id")
    c.add_argument("--yes", "-y", action="store_true")
    c.set_defaults(func=cmd_setup_delete)

    monitoring = sub.add_parser("monitoring").add_subparsers(dest="monitoring_command", required=True)
    c = monitoring.add_parser("status")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_monitoring_status)

    metrics = sub.add_parser("metrics").add_subparsers(dest="metrics_command", required=True)
    c = metrics.add_parser("list")
    c.add_argument("--project-id", "-p", required=True)
    c.add_argument("--from", dest="from_ts", required=True, type=parse_timestamp)
    c.add_argument("--to", dest="to_ts", type=parse_timestamp)
    c.add_argument("--environment", "-e", action="append", default=[])
    c.add_argument("--metric-name", "-n")
    c.add_argument("--metric-source", "-s")
    c.add_argument("--sort-by", default="event_time")
    c.add_argument("--sort-order", choices=["ASC", "DESC"], default="DESC")
    c.add_argument("--limit", "-l", type=int, default=50)
    c.add_argument("--json", action="store_true")
    c.add_argument("--unscoped", action="store_true", help="POST /v2/metrics, as the older stored version of the client")
    c.set_defaults(func=cmd_metrics_list)

    org = sub.add_parser("org").add_subparsers(dest="org_command", required=True)
    c = org.add_parser("create")
    c.add_argument("--name", "-n", required=True)
    c.add_argument("--env", "-e", action="append", default=[])
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_org_create)

    c = sub.add_parser("demo")
    c.add_argument("--entity-type", default="agent")
    c.add_argument("--entity-value", required=True)
    c.add_argument("--evaluator-id", default="cmf2mpzh4002401zwcz9y0gke")
    c.set_defaults(func=cmd_demo)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        args.func(args)
    except Abort:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
