# shellcheck shell=bash
# À sourcer par les bancs qui comparent vigie à aws-cli et rclone sur le bac à sable :
# les identifiants du bac à sable (pas un vrai secret) et la configuration d'aws-cli, avec le
# même nombre de transferts en parallèle que vigie. Attend $TMP et $PARALLELES.
export AWS_ACCESS_KEY_ID=VIGIEBACASABLE
export AWS_SECRET_ACCESS_KEY=bac-a-sable-vigie-pas-un-vrai-secret
export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
export AWS_CONFIG_FILE=$TMP/aws-config
printf '[default]\ns3 =\n  max_concurrent_requests = %s\n' "$PARALLELES" > "$AWS_CONFIG_FILE"
