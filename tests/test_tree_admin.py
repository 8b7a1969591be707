"""Trees are edited in the admin; a device is placed in a tree from its own admin page; rollups run from beat."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import RequestFactory

from monitor.graphs.trees.admin import DevicePlacementInline
from monitor.graphs.trees.models import ApiToken, Tree, TreeNode
from monitor.models import Device

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("boss", "boss@example.com", "s3cret-pass-123")
    client.force_login(user)
    client.session_user = user
    return client


def test_tree_admin_adds_nested_nodes(admin_client):
    response = admin_client.post(
        "/admin/trees/tree/add/",
        {
            "name": "Sites",
            "position": "0",
            "nodes-TOTAL_FORMS": "1",
            "nodes-INITIAL_FORMS": "0",
            "nodes-0-kind": "header",
            "nodes-0-title": "Berlin",
            "nodes-0-position": "1",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    tree = Tree.objects.get(name="Sites")
    assert list(tree.nodes.values_list("title", flat=True)) == ["Berlin"]


def test_device_admin_places_the_device_in_a_tree(admin_client):
    tree = Tree.objects.create(name="Sites")
    berlin = TreeNode.objects.create(tree=tree, kind="header", title="Berlin")
    device = Device.objects.create(name="sw1", host="127.0.0.1", community="public")
    add_page = admin_client.get("/admin/monitor/device/add/").content.decode()
    assert 'name="tree_nodes-TOTAL_FORMS"' in add_page  # the add form says where the device goes
    page = admin_client.get(f"/admin/monitor/device/{device.pk}/change/").content.decode()
    assert "places in graph trees" in page.lower() and 'name="tree_nodes-TOTAL_FORMS"' in page
    inline = DevicePlacementInline(Device, admin.site)
    request = RequestFactory().post("/")
    request.user = admin_client.session_user
    formset_class = inline.get_formset(request, device)
    data = {
        "tree_nodes-TOTAL_FORMS": "1",
        "tree_nodes-INITIAL_FORMS": "0",
        "tree_nodes-0-tree": str(tree.pk),
        "tree_nodes-0-parent": str(berlin.pk),
        "tree_nodes-0-position": "3",
    }
    formset = formset_class(data, instance=device, prefix="tree_nodes")
    assert formset.is_valid(), formset.errors
    formset.save()
    node = TreeNode.objects.get(device=device)
    assert (node.kind, node.parent, node.tree) == ("device", berlin, tree)
    bad = formset_class(data | {"tree_nodes-0-parent": str(node.pk)}, instance=device, prefix="tree_nodes")
    assert not bad.is_valid() and "only a header" in str(bad.errors)


def test_api_token_admin_shows_the_token_once(admin_client, django_user_model):
    user = django_user_model.objects.get(username="boss")
    form = {"user": user.pk, "name": "grafana", "scope": "read"}
    response = admin_client.post("/admin/trees/apitoken/add/", form, follow=True)
    token = ApiToken.objects.get(name="grafana")
    shown = [str(m) for m in response.context["messages"]]
    raw = shown[0].rsplit(" ", 1)[-1]
    assert ApiToken.hash(raw) == token.digest
