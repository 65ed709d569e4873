#!/usr/bin/env python3
"""The 4-step sample application of traceloop/tenant-evals-integration
(sample_app.py): create an organization, create a monitor setup with the
new organization's key, check the monitoring status, fetch the metrics of
the last 7 days. BASE_URL and AUTH_TOKEN (the constants of the original)
come from EVALS_API_BASE_URL and EVALS_API_AUTH_TOKEN; the project from
EVALS_PROJECT_ID (default demo-project, as in the original). With --json
it prints each step's answer as one JSON object.
"""

import json
import os
import sys
from datetime import datetime, timedelta

from evals_cli.api import APIError, AutoMonitorSetupClient, MetricsClient, MonitoringClient, OrganizationClient

BASE_URL = os.environ.get("EVALS_API_BASE_URL", "http://localhost:8080")
AUTH_TOKEN = os.environ.get("EVALS_API_AUTH_TOKEN", "Bearer your-auth-token-here")


def step1_create_organization():
    return OrganizationClient(BASE_URL, AUTH_TOKEN).create(org_name="Demo Organization", environments=["prd"])


def step2_create_monitor_setup(api_key):
    return AutoMonitorSetupClient(BASE_URL, api_key).create(
        entity_type="workflow", entity_value="pirate_tech_joke_generator", evaluator_types=["char-count"])


def step3_check_monitoring_status(api_key):
    return MonitoringClient(BASE_URL, api_key).get_status()


def step4_get_metrics(api_key, project_id=None):
    from_timestamp = int((datetime.now() - timedelta(days=7)).timestamp())
    to_timestamp = int(datetime.now().timestamp())
    project_id = project_id or os.environ.get("EVALS_PROJECT_ID", "demo-project")
    return MetricsClient(BASE_URL, api_key).get_metrics(
        project_id=project_id, from_timestamp_sec=from_timestamp, to_timestamp_sec=to_timestamp, limit=10)


def main():
    as_json = "--json" in sys.argv
    out = {}
    try:
        out["organization"] = step1_create_organization()
        new_api_key = out["organization"]["environments"][0]["api_key"]
        out["setup"] = step2_create_monitor_setup(new_api_key)
        out["status"] = step3_check_monitoring_status(new_api_key)
        out["metrics"] = step4_get_metrics(new_api_key)
    except APIError as e:
        print("Error %d: %s" % (e.status_code, e.message))
        return 1
    if as_json:
        print(json.dumps(out))
    else:
        for i, key in enumerate(["organization", "setup", "status", "metrics"], 1):
            print("Step %d - %s:" % (i, key), out[key])
    return 0


if __name__ == "__main__":
    sys.exit(main())
