"""The client stage's declaration: the kit plays the server (a scripted one), runs the SDK client
under test, and judges what the client sent against the client rules of spec 4.3 and 8.

``STAGE`` declares it to the registry: subject ``client``, not part of ``--stage all`` (it
certifies a client, not the target server), and the ``conformance client`` command
(``conformance.cli.client``); its machinery is ``conformance.stages.client``. Nothing heavy is
imported here.
"""

from __future__ import annotations

from conformance.registry.declaration import Command, Option, Stage

STAGE = Stage(
    name="client",
    help="certify an SDK client: the kit plays a scripted server (--client-command)",
    test_package="conformance.stages.client",
    plugin="conformance.stages.client.plugin",
    subject="client",
    in_all=False,
    one_process=True,
    options=(
        Option(
            "--client-command",
            "client stage: the command that starts the client under test (split like a shell "
            "would, run without one), configured by the RCES_* variables of "
            "docs/client-stage.md; the reference client when not given",
            metavar="COMMAND",
        ),
        Option(
            "--client-profile",
            "client stage: a profile whose client: and headers: sections describe the client "
            "(no credentials needed); --target-profile's when not given, else the defaults",
            metavar="FILE",
            run_flag="",
        ),
        Option(
            "--client-time-scale",
            "client stage: multiplies every time of the stage; the profile's client.time_scale "
            "when not given",
            type=float,
            metavar="SCALE",
        ),
    ),
    commands=(Command("client", "conformance.cli.client"),),
    merge_details="conformance.stages.client.summary:merge_details",
    describe="conformance.stages.client.summary:summary_lines",
    html="conformance.stages.client.chart:stage_html",
)
