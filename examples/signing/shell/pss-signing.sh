#!/usr/bin/env bash
# Signing recipe for the Partner Swap Service in bash with openssl and curl (and od, from coreutils).
#
# Signs partner requests (protocol PSS1-HMAC-SHA256, README "Signed requests") and verifies webhook
# deliveries (Standard Webhooks, README "Webhooks"). sign_request and verify_webhook are the parts to copy.
#
#   pss-signing.sh vector <path-to-signing-vector.json>
#       recompute the published worked example (and its webhook delivery); exit 0 only if all match.
#       Reads the file with grep and bash, not a JSON parser: one "key": "string" per line, as the fixture is written.
#   pss-signing.sh call <baseUrl> <keyId> <secret> <audience> [user]
#       send a signed GET <baseUrl>/partner/markup (baseUrl with the API prefix, e.g.
#       http://localhost:8080/api/v1; audience is the service's PUBLIC_ORIGIN); exit 0 only on 200
#
# Shell variables cannot hold NUL bytes: bodies here are JSON text. Everything that is signed goes to openssl
# through printf '%s', so no newline is added or lost.
set -euo pipefail

# Lowercase hex of stdin's bytes.
to_hex() { od -An -v -tx1 | tr -d ' \n'; }

# sign_request SECRET KEY_ID USER AUDIENCE METHOD PATH_AND_QUERY BODY TIMESTAMP NONCE
# Sets CANONICAL_TEXT and SIGNATURE_HEADER (v1=<hex>); the five headers are then
#   x-service-key-id: KEY_ID, x-service-user: USER, x-service-timestamp: TIMESTAMP,
#   x-service-nonce: NONCE, x-service-signature: $SIGNATURE_HEADER
sign_request() {
  local secret=$1 key_id=$2 user=$3 audience=$4 method=$5 path_and_query=$6 body=$7 timestamp=$8 nonce=$9
  local body_hash key_hex mac
  body_hash=$(printf '%s' "$body" | openssl dgst -sha256 -r | cut -d' ' -f1)
  CANONICAL_TEXT=$(printf 'PSS1-HMAC-SHA256\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s' \
    "$audience" "${method^^}" "$path_and_query" "$timestamp" "$nonce" "$key_id" "$user" "$body_hash")
  # The key is the UTF-8 bytes of the secret, handed over as hex so that no character of it is special.
  key_hex=$(printf '%s' "$secret" | to_hex)
  mac=$(printf '%s' "$CANONICAL_TEXT" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key_hex" -r | cut -d' ' -f1)
  SIGNATURE_HEADER="v1=$mac"
}

# verify_webhook SECRET WEBHOOK_ID WEBHOOK_TIMESTAMP WEBHOOK_SIGNATURE RAW_BODY [NOW]
# Succeeds when one v1 signature of the (space-separated) header matches and the timestamp is within 300 s
# of NOW (default: the clock). RAW_BODY: the body exactly as received.
verify_webhook() {
  local secret=$1 id=$2 timestamp=$3 header=$4 body=$5 now=${6:-$(date +%s)}
  [[ $secret == whsec_* && $timestamp =~ ^[0-9]{1,12}$ ]] || return 1
  local key_hex expected blind entry matched=1
  key_hex=$(printf '%s' "${secret#whsec_}" | openssl base64 -d -A | to_hex)
  [[ -n $key_hex ]] || return 1
  expected=$(printf '%s.%s.%s' "$id" "$timestamp" "$body" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key_hex" -binary | openssl base64 -A)
  # bash has no constant-time comparison: compare HMACs of both values under a random key instead, so the
  # time a comparison takes tells nothing about the expected signature.
  blind=$(openssl rand -hex 32)
  expected=$(printf '%s' "$expected" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$blind" -r | cut -d' ' -f1)
  for entry in $header; do
    [[ $entry == v1,* ]] || continue
    if [[ $(printf '%s' "${entry#v1,}" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$blind" -r | cut -d' ' -f1) == "$expected" ]]; then
      matched=0
    fi
  done
  local skew=$((now - 10#$timestamp))
  [[ $matched == 0 && $skew -le 300 && $skew -ge -300 ]]
}

# json_string FILE KEY: sets REPLY to the decoded string value of "KEY": "..." (one pair per line).
json_string() {
  local line raw out='' i c
  line=$(grep -m1 -E "^[[:space:]]*\"$2\"[[:space:]]*:[[:space:]]*\"" "$1") || return 1
  raw=${line#*:}
  raw=${raw#"${raw%%\"*}"}
  raw=${raw#\"}
  raw=${raw%%[[:space:]]}
  raw=${raw%,}
  raw=${raw%\"}
  for ((i = 0; i < ${#raw}; i++)); do
    c=${raw:i:1}
    if [[ $c == '\' ]]; then
      i=$((i + 1))
      case ${raw:i:1} in
        '"') out+='"' ;;
        '\') out+='\' ;;
        /) out+=/ ;;
        n) out+=$'\n' ;;
        t) out+=$'\t' ;;
        r) out+=$'\r' ;;
        b) out+=$'\b' ;;
        f) out+=$'\f' ;;
        *)
          echo "json_string: escape \\${raw:i:1} in \"$2\" is not supported by this reader" >&2
          return 1
          ;;
      esac
    else
      out+=$c
    fi
  done
  REPLY=$out
}

report() {
  if [[ $2 == 0 ]]; then echo "ok       $1"; else echo "MISMATCH $1"; fi
  return "$2"
}

run_vector() {
  local file=$1 ok=0 r field
  for field in secret keyId user audience method pathAndQuery timestamp nonce body canonicalText signatureHeader; do
    json_string "$file" "$field" || {
      echo "no string \"$field\" in $file" >&2
      return 1
    }
    printf -v "v_$field" '%s' "$REPLY"
  done
  sign_request "$v_secret" "$v_keyId" "$v_user" "$v_audience" "$v_method" "$v_pathAndQuery" "$v_body" "$v_timestamp" "$v_nonce"
  [[ $CANONICAL_TEXT == "$v_canonicalText" ]] && r=0 || r=1
  report "canonical text" $r || ok=1
  [[ $SIGNATURE_HEADER == "$v_signatureHeader" ]] && r=0 || r=1
  report "request signature $SIGNATURE_HEADER" $r || ok=1
  if grep -q '"webhookSignature"' "$file"; then
    for field in webhookSecret webhookId webhookTimestamp webhookBody webhookSignature; do
      json_string "$file" "$field" || return 1
      printf -v "v_$field" '%s' "$REPLY"
    done
    local args=("$v_webhookSecret" "$v_webhookId" "$v_webhookTimestamp" "$v_webhookSignature")
    verify_webhook "${args[@]}" "$v_webhookBody" "$v_webhookTimestamp" && r=0 || r=1
    report "webhook signature verifies" $r || ok=1
    verify_webhook "${args[@]}" "$v_webhookBody " "$v_webhookTimestamp" && r=1 || r=0
    report "webhook with another body is refused" $r || ok=1
    verify_webhook "${args[@]}" "$v_webhookBody" "$((v_webhookTimestamp + 301))" && r=1 || r=0
    report "webhook too old is refused" $r || ok=1
  else
    echo "no webhook vector in this file"
  fi
  return $ok
}

run_call() {
  local base=${1%/} key_id=$2 secret=$3 audience=$4 user=${5:-customer-1}
  local url="$base/partner/markup" rest path_and_query timestamp nonce body_file status
  rest=${url#*://}
  path_and_query=/${rest#*/} # the path as curl sends it (with /api/v1)
  timestamp=$(date +%s)
  nonce=$(openssl rand -hex 16)
  sign_request "$secret" "$key_id" "$user" "$audience" GET "$path_and_query" '' "$timestamp" "$nonce"
  body_file=$(mktemp)
  status=$(curl -sS --path-as-is -o "$body_file" -w '%{http_code}' "$url" \
    -H "x-service-key-id: $key_id" -H "x-service-user: $user" -H "x-service-timestamp: $timestamp" \
    -H "x-service-nonce: $nonce" -H "x-service-signature: $SIGNATURE_HEADER") || status=000
  echo "GET $path_and_query -> $status"
  cat "$body_file"
  echo
  rm -f "$body_file"
  [[ $status == 200 ]]
}

case "${1:-} $#" in
  "vector 2") run_vector "$2" ;;
  "call 5" | "call 6") run_call "${@:2}" ;;
  *)
    sed -n '7,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
