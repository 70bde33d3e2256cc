#!/usr/bin/env bash
# The official image's start-up contract, as far as docker-compose.yml uses it: NEO4J_AUTH=neo4j/<pw>
# sets the initial password on a fresh /data (none: no authentication), and every other NEO4J_<name>
# variable becomes a setting (`_` is `.`, `__` is `_`: NEO4J_db_tx__log_rotation_size is
# db.tx_log.rotation.size).
set -euo pipefail
home=/var/lib/neo4j
mkdir -p "$home/conf" "$home/run" "$home/plugins" "$home/import" /data /logs
conf="$home/conf/neo4j.conf"
declare -A given=()
{
  while IFS='=' read -r key value; do
    case "$key" in NEO4J_AUTH | NEO4J_HOME | NEO4J_CONF | NEO4J_PASSWORD) continue ;; esac
    name="${key#NEO4J_}"
    name="${name//__/$'\x01'}"
    name="${name//_/.}"
    name="${name//$'\x01'/_}"
    given[$name]=1
    printf '%s=%s\n' "$name" "$value"
  done < <(env | grep '^NEO4J_' || true)
  for default in \
    "server.default_listen_address=0.0.0.0" \
    "server.bolt.listen_address=:7687" \
    "server.http.listen_address=:7474" \
    "server.directories.data=/data" \
    "server.directories.logs=/logs" \
    "server.memory.heap.initial_size=512m" \
    "server.memory.heap.max_size=512m" \
    "server.memory.pagecache.size=256m"; do
    [ -n "${given[${default%%=*}]:-}" ] || printf '%s\n' "$default"
  done
} > "$conf"
export NEO4J_HOME="$home" NEO4J_CONF="$home/conf"
classpath="/opt/neo4j/lib/*"
auth="${NEO4J_AUTH:-}"
if [ "$auth" = none ]; then
  printf 'dbms.security.auth_enabled=false\n' >> "$conf"
elif [ -n "$auth" ] && [ ! -d /data/databases/system ]; then
  java -cp "$classpath" org.neo4j.cli.AdminTool dbms set-initial-password "${auth#neo4j/}"
fi
heap="$(sed -n 's/^server.memory.heap.max_size=//p' "$conf" | tail -1)"
exec java "-Xms$heap" "-Xmx$heap" -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -XX:-OmitStackTraceInFastThrow \
  -Dfile.encoding=UTF-8 --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true \
  -cp "$classpath" org.neo4j.server.CommunityEntryPoint --home-dir="$home" --config-dir="$home/conf"
