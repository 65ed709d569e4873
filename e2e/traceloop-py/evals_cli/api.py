"""API clients for Traceloop's monitor setup, monitoring, metrics and
organization routes, with urllib in place of requests.

Modelled on traceloop/tenant-evals-integration src/evals_cli/api.py (its
MonitoringClient, MetricsClient and AutoMonitorSetupClient; two stored
versions: the metrics client posts to /v2/projects/<project_id>/metrics in
one and to /v2/metrics in the other, both kept here) and on the
OrganizationClient its sample_app.py and README.md use (POST
/v2/organizations {"org_name", "envs"} answering {"org_id", "environments":
[{"slug", "api_key"}]}). Each call sends what the original sends: the same
method, path, query parameters (requests' encoding: None values dropped),
JSON body and headers; an answer of status >= 400 raises APIError with the
status and the decoded body, an empty body is None.
"""

import json
import time
import urllib.error
import urllib.parse
import urllib.request

from .config import get_headers


class APIError(Exception):
    def __init__(self, status_code, message):
        self.status_code = status_code
        self.message = message
        super().__init__("HTTP %d: %s" % (status_code, message))


class Response:
    """The parts of a requests.Response the clients read."""

    def __init__(self, status_code, headers, text):
        self.status_code = status_code
        self.headers = headers
        self.text = text

    def json(self):
        return json.loads(self.text)


def _request(method, url, headers, params=None, json_body=None):
    if params:
        query = urllib.parse.urlencode([(k, v) for k, v in params.items() if v is not None])
        url = url + ("&" if "?" in url else "?") + query
    data = None
    if json_body is not None:
        data = json.dumps(json_body).encode("utf-8")
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return Response(resp.status, dict(resp.headers), resp.read().decode("utf-8"))
    except urllib.error.HTTPError as err:
        return Response(err.code, dict(err.headers), err.read().decode("utf-8"))


class _Client:
    def __init__(self, base_url, auth_token):
        self.base_url = base_url.rstrip("/")
        self.auth_token = auth_token

    @property
    def headers(self):
        return get_headers(self.auth_token)

    def _handle_response(self, response):
        if response.status_code >= 400:
            try:
                error_msg = response.json()
            except Exception:
                error_msg = response.text or "Unknown error"
            raise APIError(response.status_code, str(error_msg))
        if response.text:
            return response.json()
        return None


class MonitoringClient(_Client):
    def __init__(self, base_url, auth_token):
        super().__init__(base_url, auth_token)
        self.endpoint = self.base_url + "/v2/monitoring"

    def get_status(self):
        return self._handle_response(_request("GET", self.endpoint + "/status", self.headers))


class MetricsClient(_Client):
    def _payload(self, from_timestamp_sec, to_timestamp_sec, environments, metric_name, metric_source,
                 filters, logical_operator, sort_by, sort_order, limit, cursor):
        payload = {
            "from_timestamp_sec": from_timestamp_sec,
            "to_timestamp_sec": to_timestamp_sec or int(time.time()),
            "environments": environments or [],
            "sort_by": sort_by,
            "sort_order": sort_order,
            "limit": limit,
            "cursor": cursor,
            "logical_operator": logical_operator,
        }
        if metric_name:
            payload["metric_name"] = metric_name
        if metric_source:
            payload["metric_source"] = metric_source
        if filters:
            payload["filters"] = filters
        return payload

    def get_metrics(self, project_id, from_timestamp_sec, to_timestamp_sec=None, environments=None,
                    metric_name=None, metric_source=None, filters=None, logical_operator="AND",
                    sort_by="event_time", sort_order="DESC", limit=50, cursor=0):
        """POST /v2/projects/<project_id>/metrics (the newer stored version)."""
        url = "%s/v2/projects/%s/metrics" % (self.base_url, project_id)
        payload = self._payload(from_timestamp_sec, to_timestamp_sec, environments, metric_name, metric_source,
                                filters, logical_operator, sort_by, sort_order, limit, cursor)
        return self._handle_response(_request("POST", url, self.headers, json_body=payload))

    def get_metrics_unscoped(self, from_timestamp_sec, to_timestamp_sec=None, environments=None,
                             metric_name=None, metric_source=None, filters=None, logical_operator="AND",
                             sort_by="event_time", sort_order="DESC", limit=50, cursor=0):
        """POST /v2/metrics (the older stored version)."""
        payload = self._payload(from_timestamp_sec, to_timestamp_sec, environments, metric_name, metric_source,
                                filters, logical_operator, sort_by, sort_order, limit, cursor)
        return self._handle_response(_request("POST", self.base_url + "/v2/metrics", self.headers, json_body=payload))


class AutoMonitorSetupClient(_Client):
    def __init__(self, base_url, auth_token):
        super().__init__(base_url, auth_token)
        self.endpoint = self.base_url + "/v2/auto-monitor-setups"

    def create(self, entity_type, entity_value, evaluator_ids=None, evaluator_types=None):
        evaluators = []
        for eid in evaluator_ids or []:
            evaluators.append({"evaluator_id": eid})
        for etype in evaluator_types or []:
            evaluators.append({"evaluator_type": etype})
        payload = {"entity_type": entity_type, "entity_value": entity_value, "evaluators": evaluators}
        return self._handle_response(_request("POST", self.endpoint, self.headers, json_body=payload))

    def list(self, entity_type=None, status=None):
        params = {}
        if entity_type:
            params["entity_type"] = entity_type
        if status:
            params["status"] = status
        return self._handle_response(_request("GET", self.endpoint, self.headers, params=params))

    def get(self, setup_id):
        return self._handle_response(_request("GET", self.endpoint + "/" + setup_id, self.headers))

    def delete(self, setup_id):
        self._handle_response(_request("DELETE", self.endpoint + "/" + setup_id, self.headers))


class OrganizationClient(_Client):
    def create(self, org_name, environments=None):
        payload = {"org_name": org_name}
        if environments:
            payload["envs"] = environments
        return self._handle_response(_request("POST", self.base_url + "/v2/organizations", self.headers, json_body=payload))
