"""How scenarios drive a target: requests built in the profile's terms (configurations,
experiments, SDK reads, refused writes).
"""
