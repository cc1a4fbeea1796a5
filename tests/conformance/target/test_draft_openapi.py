"""``draft_openapi``: a target's own document read into profile keys by the shape of each element,
on a document written the way a FastAPI server of this interface writes one (its own header and
field names, a base path in front of every path, ``$ref``s, ``allOf``, Swagger-style nothing
else), and nothing read from vendor extensions."""

from __future__ import annotations

from typing import Any

from conformance.target.draft_openapi import read


def _header(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "header", "required": False, "schema": schema}


FASTAPI_LIKE: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/api/sdk/v2/status": {
            "get": {
                "parameters": [
                    {"$ref": "#/components/parameters/Env"},
                    _header("X-Game-Project", {"type": "integer", "exclusiveMinimum": 0}),
                    _header("X-Server-Instance", {"type": "string", "maxLength": 128}),
                    _header("X-Client-Version", {"type": "string"}),
                    _header("authorization", {"type": "string"}),
                    _header("if-none-match", {"type": "string"}),
                ],
                "responses": {"200": {}, "304": {}},
            }
        },
        "/api/sdk/v2/bootstrap": {
            "get": {
                "parameters": [
                    {"$ref": "#/components/parameters/Env"},
                    _header("X-Unit", {"type": "string"}),
                    _header("X-Unit-Kind", {"enum": ["user", "server"]}),
                    _header("X-Unit-Attributes", {"type": "object"}),
                ],
                "responses": {"200": {}},
            }
        },
        "/api/application/{app_id}/v2/configuration": {
            "post": {
                "requestBody": {
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Create"}}
                    }
                },
                "responses": {"200": {}, "409": {}, "422": {}},
            }
        },
        "/api/application/{app_id}/v2/configuration/{cfg_id}": {
            "patch": {
                "parameters": [_header("If-Match", {"type": "string"})],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "properties": {
                                    "ops": {
                                        "type": "array",
                                        "items": {"$ref": "#/components/schemas/Op"},
                                    },
                                    "keyOrdering": {"type": "object"},
                                }
                            }
                        }
                    }
                },
                "responses": {"200": {}, "409": {}},
            }
        },
        "/api/application/{app_id}/v2/experiments": {
            "get": {
                "parameters": [
                    {"name": "per_page", "in": "query", "schema": {"maximum": 50}},
                    {"name": "page", "in": "query", "schema": {"type": "integer"}},
                ],
                "responses": {"200": {}},
            },
            "post": {
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "properties": {
                                    "unitType": {"allOf": [{"$ref": "#/components/schemas/Unit"}]},
                                    "assignmentMode": {"enum": ["weightedHash", "manual"]},
                                    "groups": {"type": "array", "maxItems": 4},
                                }
                            }
                        }
                    }
                },
                "responses": {"201": {}, "422": {}},
            },
        },
    },
    "components": {
        "parameters": {
            "Env": _header(
                "X-Env", {"type": "string", "enum": ["production", "development", "studio"]}
            ),
        },
        "schemas": {
            "Create": {
                "x-profile-key": "bodies.create.content",  # never read
                "properties": {
                    "name": {"type": "string"},
                    "doc": {},
                    "hidden": {"type": "array", "items": {"type": "string"}},
                    "remarks": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            },
            "Op": {
                "oneOf": [
                    {"properties": {"op": {"const": "add"}, "path": {}, "value": {}}},
                    {"properties": {"op": {"const": "remove"}, "path": {}}},
                ]
            },
            "Unit": {"type": "string", "enum": ["user", "server", "device"]},
        },
    },
}


def test_a_documents_elements_become_profile_keys_by_their_shape() -> None:
    found = {f.key: f.value for f in read(FASTAPI_LIKE, "http://target/openapi.json")}
    assert found == {
        "headers.environment": "X-Env",
        "headers.numeric": "X-Game-Project",
        "headers.instance_id": "X-Server-Instance",
        "headers.sdk_version": "X-Client-Version",
        "headers.unit_id": "X-Unit",
        "headers.unit_type": "X-Unit-Kind",
        "headers.unit_context": "X-Unit-Attributes",
        "bodies.create.content": "doc",
        "bodies.create.private_keys": "hidden",
        "bodies.create.comments": "remarks",
        "bodies.patch.operations": "ops",
        "bodies.patch.key_order": "keyOrdering",
        "bodies.patch.base_hash_transport": "if-match",
        "statuses.create_configuration": 200,
        "statuses.create_experiment": 201,
        "experiments.unit_types": ["user", "server", "device"],
        "experiments.assignment_modes": ["weightedHash", "manual"],
        "experiments.max_groups": 4,
        "experiment_payload.limit_param": "per_page",
        "experiments.page_size_max": 50,
        "experiment_payload.page_param": "page",
        "experiment_payload.pagination": "page",
    }


def test_every_finding_says_it_is_documented_and_where() -> None:
    findings = read(FASTAPI_LIKE, "http://target/openapi.json")
    assert findings and all(f.source == "documented" for f in findings)
    assert all("in the target's document (http://target/openapi.json)" in f.how for f in findings)


def test_an_ambiguous_element_is_left_for_the_person() -> None:
    """Two headers that could each be the environment: neither is written."""
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "paths": {
            "/sdk/v2/status": {
                "get": {
                    "parameters": [
                        _header("env-a", {"type": "string"}),
                        _header("env-b", {"type": "string"}),
                    ]
                }
            }
        },
    }
    assert [f.key for f in read(document, "here")] == []
