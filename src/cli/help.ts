/**
 * What `vils <command> --help` prints under the usage line: every flag, what it does, and its default
 * (in brackets). One place for all commands, so that a test can hold each usage line against its help.
 */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  serve: `
arguments and flags [default]:
  --port <n>                  TCP port of the web map, REST API, WebSocket stream and /metrics [8000]
  --host <address>            address to listen on [0.0.0.0: every interface; 127.0.0.1 for this machine only]
  --map <file.json>           road map of the default scene [maps/demo-track.json]
  --config <file.json>        session settings (see docs/car-in-the-loop.md, REST API), origin, map, model, port, host, scenes
  --model <file.onnx>         policy model [models/gpudrive-policy.onnx, built from the shipped checkpoint; VILS_MODEL]
  --paused                    start paused (POST /api/start runs it) [running]
  --scene <name>=<map.json>   one more scene in the same process, at /scenes/<name>/ (repeatable) [none]
  --access <file.json>        tokens and roles, allowed origins and hosts, rate limits [VILS_ACCESS_FILE; none: open]
                              (tokens also from VILS_OPERATOR_TOKENS, VILS_DRIVER_TOKENS, VILS_VIEWER_TOKENS)
  --log-level <level>         fatal, error, warn, info, debug, trace [info]
  --log-format <pretty|json>  one readable line per event, or JSON lines [pretty on a terminal, json otherwise]
  --no-record                 do not record [record every scene to MCAP]
  --record-dir <dir>          where recordings go [recordings]
  --record-max-file-mb <n>    start a new segment at this size [512]
  --record-max-total-mb <n>   delete the oldest recordings past this total (0: never) [8192]
  --record-foxglove-hz <n>    rate of the recorded Foxglove views (0: none) [10]
  --foxglove-port <n>         also serve Foxglove on a port of its own [only at /foxglove]
  --scenario <scenario.yaml>  run a scenario: its road map, NPCs, scene settings and simulated egos [none]
  --story-ego <ego_id>        a test case (a scenario with story:) played by the real car of this ego_id, not its simulated ego [the simulated ego]
  --ego-priority <fifo|normal|nice>  the simulated egos' thread (realtime): real-time scheduler, as it is, or a niceness [fifo]
                              (fifo and a lower niceness need CAP_SYS_NICE; refused, it runs as it is: sim_egos.thread.priority)
  --cpus <auto|all|list>      the CPUs the server's threads keep to, as taskset writes them (1, 0,2-3) [auto]
                              (auto: with the egos' thread on the real-time scheduler, its last CPU, leaving the
                              others to the stacks it co-simulates with; else all: /api/status cpus)
  --pedestrians <n>           people the scene keeps at the map's crosswalks (the pedestrians setting) [0]
  --time-mode <mode>          time conductor: realtime (wall clock is the master), afap or lockstep (at most real
                              time, held by slow assets) [the scenario's time.mode, else realtime]
  --dmax-ms <ms>              largest skew allowed between assets (≥ the NPC world's 100 ms step) [100]
  --time-step-ms <ms>         the core step; in lockstep every asset's step [1; lockstep 10]
  --asset-port <port>         UDP port for external simulators (src/time/asset-protocol.ts; on 127.0.0.1) [none]`,
  geo: `
arguments and flags [default]:
  <lat> <lon>                 the point, WGS84 degrees (latitude first); refused outside UTM zone 52N (± 3°)
  --origin <lat,lon>          the map origin the local x, y are about [37.3645,126.7239, FMTC]
  --heading <deg>             also turn a heading (degrees clockwise from true north) into the map yaw [none]
  --json                      one JSON object instead of text [text]`,
  'convert-map': `
arguments and flags [default]:
  <dir>                       the folder of NGII HD-map shapefiles (A1_NODE, A2_LINK, B2_SURFACELINEMARK, …)
  --out <file.json>           the road JSON to write (required)
  --origin <lat,lon>          the map origin [the map's centre]
  --json                      a JSON summary instead of text (and no progress line) [text]`,
  'render-map': `
arguments and flags [default]:
  <map.json>                  a road map (VILS road JSON or a GPUDrive scene)
  --out <file.svg>            the SVG to write (required)
  --width <px>                picture width [1600]`,
  drive: `
flags [default]:
  --map <file.json>           road map [maps/demo-track.json]
  --npcs <n>                  NPCs the scene keeps on the map [30]
  --seconds <s>               simulated seconds to run (as fast as the machine goes) [60]
  --seed <n>                  scenario seed [1]
  --model <file.onnx>         policy model [the default model]
  --no-rules                  NPCs ignore signals, stop lines, signs and right of way (the signals still run) [rules on]
  --no-right-on-red           right turns wait for green (Korean law lets them go on red after a full stop) [they may]
  --actuated                  signals that run alone are vehicle-actuated (greens timed by the vehicles detected) [fixed time]
  --route-choice <mode>       how NPCs pick their route's forks: random, or queues (away from exits with standing vehicles) [random]
  --pedestrians <n>           people at the map's crosswalks, with their figures (struck, onto occupied crosswalks, starts on don't-walk) [0]
  --json                      one JSON object instead of text [text]`,
  eval: `
flags [default]:
  --scenes <files...>         GPUDrive scene JSON files (required)
  --checkpoint <file.pt>      evaluate a torch checkpoint, converted into a temporary folder [the default model]
  --model-out <file.onnx>     keep the model converted from --checkpoint here [not kept]
  --model <file.onnx>         evaluate an ONNX model [the default model]
  --deterministic             argmax actions [deterministic unless --seed]
  --seed <n>                  sample actions from the policy with this seed [none]
  --threads <n>               ONNX Runtime intra-op threads [1]
  --json                      one JSON object instead of a table [table]
  --trace <file.json>         write every agent's trajectory [none]`,
  plant: `
arguments and flags [default]:
  <iso7401|iso4138|iso3888>   the procedure: step steer, steady-state circular (steer ramp), double lane change
  --vehicle <yaml>            VDSim vehicle file (required)
  --tire <yaml>               VDSim tire file (required)
  --level <L1|L2|L3>          vehicle model: bicycle, 7-DOF, 14-DOF [L2]
  --speed-kmh <n>             test speed [iso7401 80, iso4138 80, iso3888 60]
  --steer-deg <n>             road-wheel steer: of the step (iso7401) or at the end of the ramp (iso4138) [6, 4]
  --mu <n>                    road friction [1]
  --allow-duplicate-keys      accept a YAML with a key given twice (the last wins) [refused]
  --json                      one JSON object instead of text [text]
  --plot <file.svg>           draw the traces [none]
exit status: 1 when ISO 3888-2 prints FAIL, 2 on a usage error, else 0`,
  realtime: `
arguments and flags [default] (VDSim's --name=value form; --name value works too):
  <vehicle.yaml> <tire.yaml>  one vehicle from VDSim files; or --scene=<world or catalog scene YAML>
  --scene=<yaml>              a world or catalog scene (its rate and cmd_timeout win) [none]
  --catalog=<dir>             VDSim configs folder for catalog scenes (repeatable) [none]
  --level=<L1|L2|L3>          vehicle model [L2]
  --cmd-port=<n>              UDP port for VDS1 CMD [7001]
  --state-ip=<ip>             where STATE goes [127.0.0.1]
  --state-port=<n>            its port [7002]
  --rate=<hz>                 tick rate [200]
  --vx0=<m/s>                 initial speed [0]
  --cmd-timeout=<s>           fail-safe after this long without a CMD [0.1]
  --time-scale=<x>            simulation speed against the wall clock [1]
  --lugre, --no-lugre         LuGre tire friction on or off [as the tire file says]
  --protocol=<1..5>           VDS1 version spoken [5]
  --failsafe=<straight|hold-steer>  what the fail-safe does with the steering [straight]
  --failsafe-brake=<0..1>     fail-safe brake [0.3]
  --http-port=<n>             serve the JSON data port (/api/io, OpenAPI at /docs) [off]
  --http-host=<ip>            its address [127.0.0.1]
  --io-timeout=<s>            a command posted to /api/io expires after this long (0: held) [0]
  --t-end=<s>                 stop after this much simulated time [run until stopped]
  --bind=<ip>                 address the command ports listen on [127.0.0.1]; beyond loopback --allow is needed
  --allow=<ip or a.b.c.d/n>,… the machines whose datagrams are taken besides loopback (others are dropped and
                              counted), and that the data port may send telemetry to; repeatable [none]
  --auto-subscribers=<n>      legacy subscribers discovered from CMD sources at most; 0: STATE only to
                              --state-ip:--state-port [4]
  --spin-us=<µs>              busy-wait this long before each tick for punctuality [1500]
  --priority=<nice>           process niceness (lower needs CAP_SYS_NICE) [unchanged]
  --allow-duplicate-keys      accept a YAML with a key given twice [refused]
  --quiet                     no health line [one per second]
  --json                      a JSON summary on exit [text]
  --time-mode=<mode>          time conductor: realtime (the wall clock is the master, the plant never held), afap
                              or lockstep (the plant ticks only when the rule lets it; slow assets slow it) [realtime]
  --dmax-ms=<ms>              largest skew allowed between the plant and external assets [100]
  --time-step-ms=<ms>         the core step; in lockstep every asset's step (a multiple of 1/--rate) [1; lockstep 10]
  --asset-port=<n>            UDP port for external simulators (src/time/asset-protocol.ts; on 127.0.0.1) [none]`,
  replay: `
arguments and flags [default]:
  <file.mcap>                 any segment of a recorded session
  <folder>                    its newest recording that holds frames (e.g. recordings/)
                              exit: 0 no difference, 1 a difference, 3 cut short, 4 no frame (nothing compared)
  --model <file.onnx>         the model to replay with [the recorded one, else the default]
  --allow-model-mismatch      replay with a model whose sha256 differs from the recorded one [refused]
  --allow-partial             a recording cut short (no footer: its process was killed) exits 0 when it replays
                              without a difference, not 3 [refused]
  --all                       count every difference [stop at the first]
  --json                      one JSON object instead of text [text]
  --play                      play the recording to clients as if live instead of replaying it
  --speed <x>                 playback speed (--play) [1]
  --loop                      start over at the end (--play) [stop]
  --port <n>                  playback port (--play) [8000]
  --host <address>            playback address (--play) [0.0.0.0]
  --log-level <level>         playback log level (--play) [info]`,
  export: `
arguments and flags [default]:
  <file.mcap>                 any segment of a recorded session (all its segments are read, from the first)
  --out <file.mcap>           the ROS 2 recording to write (required)
  --frame-id <frame>          the frame of the NPCs, as the bridge's frame_id [vils_map]
  --map-frame <frame>         the car's map frame: /tf_static has map frame -> frame id [map]
  --map-offset <x,y,z,yaw>    the VILS frame's pose in the car's map frame, m and rad [0,0,0,0]
  --traffic-light-group-ids <J1.A=1001,...>  the car's lanelet2 traffic light ids by signal group [each group's numeric_id]
  --traffic-lights-topic <topic>  TrafficLightGroupArray topic [/perception/traffic_light_recognition/traffic_signals]
  --signals-topic <topic>     the signals' JSON (std_msgs/String) [/vils/signals]
  --json                      one JSON object instead of text [text]`,
  'time-grid': `
flags [default]:
  --json                      one JSON object instead of a table [table]
  --out <file.svg>            draw std of Tc − Ti against dmax [none]
  --schedule <greedy|paced|both>  asset schedules to run [both]
  --speed <x>                 virtual time speed-up [10]
  --work-us <µs>              work per asset step [50]
  --steps <n>                 steps per run [1000]
  --samples <n>               runs per cell [10]
  --step-ms <ms>              asset step [10]
  --dmax-ms <list>            allowed lead of an asset [10,20,40,80,100]
  --assets <list>             asset counts [1,2,4,8,10]`,
  demo: `
flags [default]:
  --model <file.onnx>         policy model [the default model]
  --checkpoint <file.pt>      a torch checkpoint instead, converted into a temporary folder [none]
  --steps <n>                 policy steps to run [120]`,
  'build-policy': `
flags [default]:
  --checkpoint <file.pt>      GPUDrive late-fusion PPO checkpoint (torch zip) (required)
  --out <file.onnx>           the model to write (required)
  --size-scale <x>            the factor the policy was trained with on agent length and width [0.7]`,
  run: `
arguments and flags [default]:
  <scenario.yaml>             a scenario (map, egos and their drivers, NPCs, run settings)
  --out <dir>                 write each ego's CSV, metrics.json and resolved.yaml here [nothing written]
  --set <key>=<value>         override a scenario setting by its dotted key (repeatable) [none]
  --model <file.onnx>         policy model for the NPCs [the default model]
  --json                      one JSON object instead of text [text]
  --quiet                     no progress [progress on stderr]
time conductor (the scenario's time: block, or --set): time.mode=afap|lockstep|realtime [api: afap, rt_comms:
  realtime], time.dmax_ms [100], time.step_ms [1; lockstep 10], time.asset_port [none], time.expect_assets [none]`,
  batch: `
arguments and flags [default]:
  <campaign.yaml>             a campaign: scenario lists, grids, Monte-Carlo draws
  --out <dir>                 results folder (resumable: finished runs are kept) [results/<campaign name>]
  --parallel <n>              worker threads [the campaign's, else one per core]
  --queue <redis://host:port> run on a BullMQ queue instead (start workers with vils worker) [worker threads]
  --queue-name <name>         the queue's name [vils-batch]
  --retry-failed              run the runs that failed before again [skip them]
  --json                      one JSON summary instead of text [text]`,
  worker: `
flags [default]:
  --queue <redis://host:port> the BullMQ queue to take runs from (required)
  --concurrency <n>           runs at once [one per core]
  --queue-name <name>         the queue's name [vils-batch]
  --quiet                     no line per run [one per run]`,
};
